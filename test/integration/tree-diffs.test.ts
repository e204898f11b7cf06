import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/git.js';
import { GUARDED_ENV } from '../../src/git/git-guard.js';
import { TreeDiffs } from '../../src/git/long-running.js';
import { git, gitdir } from '../helpers/gitdir.js';

const gitDiff = async (dir: string, from: string, to: string) =>
  (await execa('git', ['diff', '--name-status', '-z', '-M', from, to], { cwd: dir, stripFinalNewline: false })).stdout;

describe('name-status diffs through one long-running git diff-tree (real repositories)', () => {
  it('answers what git diff --name-status -z -M prints, for any pair, in any order; a bad commit is null', async () => {
    const hex = 'a'.repeat(40);
    const dir = await gitdir({ 'a.txt': 'alpha\n'.repeat(20), M: 'named like a status\n', 'keep.txt': 'k\n' });
    const commits = [await git(dir, 'rev-parse', 'HEAD')];
    const commit = async (change: () => Promise<unknown>) => {
      await change();
      await git(dir, 'add', '--all');
      await git(dir, 'commit', '-qm', 'step');
      commits.push(await git(dir, 'rev-parse', 'HEAD'));
    };
    await commit(() => git(dir, 'mv', 'a.txt', 'renamed é.txt'));
    await commit(() => writeFile(join(dir, hex), 'a file named like an object id\n'));
    await commit(async () => {
      await writeFile(join(dir, 'M'), 'changed\n');
      await git(dir, 'rm', '-q', 'keep.txt');
    });
    const diffs = new TreeDiffs({ cwd: dir, env: { ...process.env, ...GUARDED_ENV }, prefix: [] });
    onTestFinished(() => diffs.close());
    const pairs = [
      [0, 1],
      [1, 2],
      [0, 3],
      [3, 0],
      [2, 3],
      [1, 3],
    ] as const;
    const answers = await Promise.all(
      pairs.map(([a, b]) => diffs.nameStatus(commits[a] as string, commits[b] as string)),
    );
    for (const [i, [a, b]] of pairs.entries())
      expect(answers[i]).toBe(await gitDiff(dir, commits[a] as string, commits[b] as string));
    expect(answers[0]).toContain('renamed é.txt');
    expect(answers[1]).toContain(hex);
    // A commit git cannot read: null (the caller asks git diff), and the next answer is still right.
    expect(await diffs.nameStatus('b'.repeat(40), commits[1] as string)).toBeNull();
    expect(await diffs.nameStatus(commits[0] as string, commits[3] as string)).toBe(answers[2]);
  });

  it('Git kept alive takes its changed files from it for commits; the answers match a Git that spawns git diff, for trees too', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const from = await git(dir, 'rev-parse', 'HEAD');
    await writeFile(join(dir, 'b.txt'), 'b\n');
    await git(dir, 'add', '--all');
    await git(dir, 'commit', '-qm', 'b');
    const to = await git(dir, 'rev-parse', 'HEAD');
    const alive = new Git(dir);
    alive.keepAlive();
    onTestFinished(() => alive.close());
    expect(await alive.changedFiles(from, to)).toEqual([{ status: 'A', path: 'b.txt' }]);
    expect(await alive.changedFiles(from, to)).toEqual(await new Git(dir).changedFiles(from, to));
    // Trees (gates compare folders by their trees): answered as git diff answers, never left waiting.
    const [fromTree, toTree] = [
      await git(dir, 'rev-parse', `${from}^{tree}`),
      await git(dir, 'rev-parse', `${to}^{tree}`),
    ];
    expect(await alive.changedFiles(fromTree, toTree)).toEqual([{ status: 'A', path: 'b.txt' }]);
    expect(await alive.changedFiles(from, toTree)).toEqual([{ status: 'A', path: 'b.txt' }]);
    expect(await alive.changedFiles(fromTree, to)).toEqual([{ status: 'A', path: 'b.txt' }]);
  });
});
