import { chmod, copyFile, mkdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseCacheTree } from '../../src/git/cache-tree.js';
import { Git } from '../../src/git/git.js';
import { parseIndex } from '../../src/git/index-file.js';
import { mulberry32 } from '../helpers/fuzz-json.js';
import { git, gitdir } from '../helpers/gitdir.js';

const START = {
  'README.md': '# r\n',
  'src/a.js': 'a\n',
  'src/lib/b.js': 'b\n',
  'src/lib/deep/c.js': 'c\n',
  'test/a.test.js': 't\n',
  'docs/x y/é.md': 'accent\n',
  'run.sh': 'echo\n',
};

const FOLDERS = ['', 'src', 'src/lib', 'src/lib/deep', 'src/new', 'test', 'docs/x y', 'pkg/one/two'];
const NAMES = ['a.js', 'b.js', 'n.txt', 'é.md', 'with space.txt', 'Z.txt', '0.txt'];

/** One round of edits, the same in both repositories: edits, new files and folders, removals, modes. */
async function edit(dirs: string[], random: () => number, tracked: string[]): Promise<void> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  const ops = 1 + Math.floor(random() * 5);
  for (let i = 0; i < ops; i++) {
    // Every draw is made once, before either repository is touched: both see the same edit.
    const kind = random();
    const existing = tracked.length > 0 ? pick(tracked) : undefined;
    const folder = pick(FOLDERS);
    const name = pick(NAMES);
    const path = folder ? `${folder}/${name}` : name;
    // Never a file where a folder is, or the other way: that is left to git (the second test, git.test.ts).
    const blocked = tracked.some((t) => t.startsWith(`${path}/`) || path.startsWith(`${t}/`));
    for (const dir of dirs) {
      if (kind < 0.35 && existing) await writeFile(join(dir, existing), `edited ${i} ${kind}\n`);
      else if (kind < 0.55 && existing) await rm(join(dir, existing), { force: true });
      else if (kind < 0.65 && existing) await chmod(join(dir, existing), 0o755).catch(() => undefined);
      else if (kind < 0.7) await rm(join(dir, 'src/lib'), { recursive: true, force: true });
      else if (!blocked) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), `new ${i}\n`);
      }
    }
  }
}

/** What git itself says of an index star-loop wrote: its cache-tree's folders against HEAD, racy entries. */
async function checkIndex(dir: string): Promise<void> {
  const indexFile = join(dir, '.git/index');
  const parsed = parseIndex(await readFile(indexFile), 20);
  if (typeof parsed === 'string') throw new Error(parsed);
  const cache = parsed.tree ? parseCacheTree(parsed.tree, 20) : undefined;
  for (const [folder, node] of cache ?? []) {
    if (node.count < 0) continue;
    const name = Buffer.from(folder, 'latin1').toString('utf8');
    expect(node.oid, `cache-tree of "${name}"`).toBe(await git(dir, 'rev-parse', `HEAD:${name}`));
    const files = (await git(dir, 'ls-files', '-z', '--', name || '.')).split('\0').filter(Boolean);
    expect(node.count, `entries under "${name}"`).toBe(files.length);
  }
  // An entry as new as the index is marked (size 0) so git compares its content.
  const indexMtime = (await stat(indexFile, { bigint: true })).mtimeNs;
  const debug = await git(dir, 'ls-files', '--debug');
  for (const block of debug.split(/\n(?=\S)/)) {
    const mtime = /mtime: (\d+):(\d+)/.exec(block);
    const size = /size: (\d+)/.exec(block);
    if (!mtime || !size) continue;
    const ns = BigInt(mtime[1] as string) * 1_000_000_000n + BigInt(mtime[2] as string);
    if (ns >= indexMtime) expect(size[1], block).toBe('0');
  }
}

const INDEX_PROCESS = /git (update-index|write-tree|add|read-tree|commit-tree)\b/;

/** git's own trace of every command run with this environment (star-loop's git passes it on), for one test. */
function traceGit(dir: string): { clear(): Promise<void>; ran(): Promise<string[]> } {
  const file = join(dir, '.git', 'trace.log');
  const before = process.env.GIT_TRACE;
  process.env.GIT_TRACE = file;
  onTestFinished(() => {
    if (before === undefined) delete process.env.GIT_TRACE;
    else process.env.GIT_TRACE = before;
  });
  return {
    clear: () => rm(file, { force: true }),
    ran: async () => (await readFile(file, 'utf8')).split('\n').filter((l) => l.includes('built-in')),
  };
}

/** `git write-tree` of a copy of the index: it trusts the cache-tree, so a wrong folder there comes out here. */
async function writeTreeOfCopy(dir: string): Promise<string> {
  const copy = join(dir, '.git', 'index.copy');
  await copyFile(join(dir, '.git/index'), copy);
  const { stdout } = await execa('git', ['write-tree'], { cwd: dir, env: { GIT_INDEX_FILE: copy } });
  return stdout.trim();
}

describe("star-loop's commit from its own index (no update-index, no write-tree), against git's", () => {
  it('forty rounds of random edits: the same tree as `git add --all`, the same index entries, a sound cache-tree', async () => {
    const mine = await gitdir(START);
    const theirs = await gitdir(START);
    const trace = traceGit(mine);
    const repo = new Git(mine);
    repo.keepAlive();
    onTestFinished(() => repo.close());
    const random = mulberry32(19);
    for (let round = 0; round < 40; round++) {
      const tracked = (await git(theirs, 'ls-files', '-z')).split('\0').filter(Boolean);
      await edit([mine, theirs], random, tracked);
      await trace.clear();
      const changes = await repo.workingChanges();
      const commit = await repo.commitAll(`round ${round}`, changes);
      const label = `round ${round}: ${JSON.stringify(changes)}`;
      // What git ran for star-loop (read before the test's own git commands, which git traces too).
      const ran = await trace.ran();
      expect(
        ran.some((l) => / status /.test(l)),
        'the trace shows the status asked',
      ).toBe(true);
      if (changes.length > 0 && round > 0) {
        // From the second commit on, the index star-loop wrote is its own: no index process ran.
        expect(
          ran.filter((l) => INDEX_PROCESS.test(l)),
          label,
        ).toEqual([]);
        expect(commit, label).toBe(await git(mine, 'rev-parse', 'HEAD'));
      }
      await git(theirs, 'add', '--all');
      const expected = await git(theirs, 'write-tree');
      expect(await git(mine, 'rev-parse', 'HEAD^{tree}'), label).toBe(expected);
      // Checked without writing the index (a plain `git status` would refresh it: no longer star-loop's own).
      expect(await git(mine, '--no-optional-locks', 'status', '--porcelain'), label).toBe('');
      expect(await git(mine, 'ls-files', '-s'), label).toBe(await git(theirs, 'ls-files', '-s'));
      expect(await writeTreeOfCopy(mine), label).toBe(expected);
      await checkIndex(mine);
    }
    expect((await git(mine, 'fsck', '--strict', '--no-dangling')).trim()).toBe('');
  }, 120_000);

  it('what it cannot write exactly goes to git (a symbolic link, a file that becomes a folder, a nested repository), and the next commit is its own again', async () => {
    const mine = await gitdir({ 'a.txt': 'a\n', f: 'file\n', 'd/x.txt': 'x\n' });
    const trace = traceGit(mine);
    const repo = new Git(mine);
    repo.keepAlive();
    onTestFinished(() => repo.close());
    await writeFile(join(mine, 'first.txt'), '1\n');
    await repo.commitAll('first', await repo.workingChanges());
    await rm(join(mine, 'f'));
    await mkdir(join(mine, 'f'));
    await writeFile(join(mine, 'f/in.txt'), 'i\n');
    await writeFile(join(mine, 'a.txt'), 'A\n');
    await symlink('a.txt', join(mine, 'link'));
    const commit = await repo.commitAll('second', await repo.workingChanges());
    expect(commit).toBe(await git(mine, 'rev-parse', 'HEAD'));
    expect(await git(mine, 'ls-tree', '-r', 'HEAD', 'link')).toMatch(/^120000 blob /);
    expect(await git(mine, 'ls-tree', '-r', '--name-only', 'HEAD')).toBe('a.txt\nd/x.txt\nf/in.txt\nfirst.txt\nlink');
    expect(await git(mine, '--no-optional-locks', 'status', '--porcelain')).toBe('');
    // A repository inside (status lists it as `nested/`) becomes a gitlink, as `git add --all` makes it.
    const nested = join(mine, 'nested');
    await mkdir(nested);
    await git(nested, 'init', '-q');
    await writeFile(join(nested, 'n.txt'), 'n\n');
    await git(nested, 'add', 'n.txt');
    await git(nested, 'commit', '-qm', 'nested');
    await repo.commitAll('nested', await repo.workingChanges());
    expect(await git(mine, 'ls-tree', 'HEAD', 'nested')).toMatch(/^160000 commit /);
    expect(await git(mine, '--no-optional-locks', 'status', '--porcelain')).toBe('');
    // And the index git wrote is star-loop's own again: the next plain edit takes the fast way.
    await writeFile(join(mine, 'd/x.txt'), 'X\n');
    // A file dated after the index star-loop is about to write (a clock ahead): git must compare its content.
    await writeFile(join(mine, 'a.txt'), 'future\n');
    const ahead = new Date(Date.now() + 60_000);
    await utimes(join(mine, 'a.txt'), ahead, ahead);
    await trace.clear();
    expect(await repo.commitAll('third', await repo.workingChanges())).toBe(await git(mine, 'rev-parse', 'HEAD'));
    expect((await trace.ran()).filter((l) => INDEX_PROCESS.test(l))).toEqual([]);
    expect(await git(mine, 'show', 'HEAD:d/x.txt')).toBe('X');
    expect(await git(mine, 'ls-files', '--debug', 'a.txt')).toMatch(/size: 0\t/);
    await writeFile(join(mine, 'a.txt'), 'FUTURE\n'); // same size, same (future) time: found by content
    await utimes(join(mine, 'a.txt'), ahead, ahead);
    expect(await repo.workingChanges()).toEqual([{ code: ' M', path: 'a.txt' }]);
    expect(await writeTreeOfCopy(mine)).toBe(await git(mine, 'rev-parse', 'HEAD^{tree}'));
    await checkIndex(mine);
  });
});
