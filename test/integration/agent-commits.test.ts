import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/git.js';
import { git, gitdir } from '../helpers/gitdir.js';

/**
 * Without the sandbox the agent commits itself; the secret scan reads its commits' patch and messages every
 * iteration, through long-running diff-tree and cat-file (kept alive) instead of `git diff` and `git log`.
 * Each answer is checked against a Git that is not kept alive, which asks `git diff` and `git log`.
 */
describe("the agent's commits read without a process per iteration (real repositories)", () => {
  it('the same patch and messages as git diff and git log, for lines of commits; merges go to git log', async () => {
    const dir = await gitdir({ 'a.txt': 'one\ntwo\nthree\n', 'keep.txt': 'k\n', 'old name.txt': 'moved\n'.repeat(9) });
    const start = await git(dir, 'rev-parse', 'HEAD');
    const commit = async (message: string, ...extra: string[]) => {
      await git(dir, 'add', '--all');
      await git(dir, 'commit', '-q', '--allow-empty', '--allow-empty-message', '-m', message, ...extra);
      return git(dir, 'rev-parse', 'HEAD');
    };
    await writeFile(join(dir, 'a.txt'), 'one\n2\nthree\nfour\n');
    await commit('edit a\n\nwith a body\n  and an indented line  \n');
    await git(dir, 'mv', 'old name.txt', 'new name é.txt');
    await writeFile(join(dir, 'bin.dat'), Buffer.from([0, 1, 2, 255, 10, 65, 0]));
    await commit('rename and a binary file');
    await rm(join(dir, 'keep.txt'));
    await commit('');
    await writeFile(join(dir, 'k.txt'), 'AKIA0000000000000000\n');
    const line = await commit('subject only');

    const trace = join(dir, '.git', 'trace.log');
    const before = process.env.GIT_TRACE;
    process.env.GIT_TRACE = trace;
    const fast = new Git(dir);
    fast.keepAlive();
    const plain = new Git(dir);
    onTestFinished(() => {
      fast.close();
      if (before === undefined) delete process.env.GIT_TRACE;
      else process.env.GIT_TRACE = before;
    });
    const pairs = [
      [start, line],
      [start, await git(dir, 'rev-parse', 'HEAD~2')],
      [await git(dir, 'rev-parse', 'HEAD~1'), line],
    ] as const;
    for (const [from, to] of pairs) {
      const [patch, messages] = [await fast.unifiedDiff(from, to), await fast.commitMessages(from, to)];
      expect(patch).toContain('diff --git');
      expect(messages.length).toBeGreaterThan(0);
      // Asked of git's own commands by a Git not kept alive: the same answers.
      expect(patch).toBe(await plain.unifiedDiff(from, to));
      expect(messages).toEqual(await plain.commitMessages(from, to));
    }
    expect(await fast.commitMessages(start, line, 2)).toEqual(await plain.commitMessages(start, line, 2));
    const ran = (await readFile(trace, 'utf8')).split('\n').filter((l) => l.includes('built-in'));
    const fastRan = ran.filter((l) => /git (diff|log) /.test(l));
    // The plain Git's three patches and four lists of messages, and one more log: more commits than the
    // `max` asked for go to git log (it picks the newest by date).
    expect(fastRan.filter((l) => / diff /.test(l))).toHaveLength(3);
    expect(fastRan.filter((l) => / log /.test(l))).toHaveLength(5);

    // A merge in the range: not a line of commits, so git log is asked, and answers the same.
    await git(dir, 'switch', '-q', '-c', 'side', start);
    await writeFile(join(dir, 'side.txt'), 'side\n');
    const side = await commit('on the side');
    await git(dir, 'switch', '-q', 'work');
    await git(dir, 'merge', '-q', '--no-ff', '-m', 'merge side', side);
    const merged = await git(dir, 'rev-parse', 'HEAD');
    expect(await fast.commitMessages(start, merged)).toEqual(await plain.commitMessages(start, merged));
    expect((await fast.commitMessages(start, merged)).map((m) => m.text.trim())).toContain('on the side');
  });
});
