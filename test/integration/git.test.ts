import { chmod, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/git.js';
import { git, gitdir } from '../helpers/gitdir.js';

describe('Git (the only owner of git), on real repositories', () => {
  it('reads branch, default branch, HEAD; ignores .star/ when listing changes', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    expect(await repo.currentBranch()).toBe('work');
    expect(await repo.defaultBranch()).toEqual({ name: 'main', source: 'refs/heads/main' });
    expect(await repo.head()).toBe(await git(dir, 'rev-parse', 'HEAD'));
    await mkdir(join(dir, '.star'), { recursive: true });
    await writeFile(join(dir, '.star/state.json'), '{}');
    await writeFile(join(dir, 'b.txt'), 'b\n');
    await writeFile(join(dir, 'a.txt'), 'changed\n');
    expect(await repo.workingChanges()).toEqual([
      { code: ' M', path: 'a.txt' },
      { code: '??', path: 'b.txt' },
    ]);
    expect(await Git.topLevel(join(dir, '.star'))).toBe(await git(dir, 'rev-parse', '--show-toplevel'));
  });

  it('the default branch from git files and the config already read: origin/HEAD, init.defaultBranch, main or master, packed too', async () => {
    const fresh = async (dir: string) => {
      // As recon does: the top level first (its git directories are taken from that answer).
      expect(await Git.topLevel(dir)).toBe(await git(dir, 'rev-parse', '--show-toplevel'));
      return new Git(dir).defaultBranch();
    };
    const dir = await gitdir({ 'a.txt': 'a\n' });
    expect(await fresh(dir)).toEqual({ name: 'main', source: 'refs/heads/main' });
    await git(dir, 'pack-refs', '--all');
    expect(await fresh(dir)).toEqual({ name: 'main', source: 'refs/heads/main' });
    await git(dir, 'branch', '-m', 'main', 'master');
    expect(await fresh(dir)).toEqual({ name: 'master', source: 'refs/heads/master' });
    await git(dir, 'branch', '-m', 'master', 'trunk');
    expect(await fresh(dir)).toEqual({ source: 'none found' });
    await git(dir, 'config', 'init.defaultBranch', 'develop');
    expect(await fresh(dir)).toEqual({ name: 'develop', source: 'init.defaultBranch' });
    await git(dir, 'update-ref', 'refs/remotes/origin/release', 'HEAD');
    await git(dir, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/release');
    expect(await fresh(dir)).toEqual({ name: 'release', source: 'origin/HEAD' });
    expect(await git(dir, 'symbolic-ref', '--short', 'refs/remotes/origin/HEAD')).toBe('origin/release');
  });

  it('the git dirs said once by topLevel are those git gives, in a linked worktree too', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const linked = join(await mkdtemp(join(tmpdir(), 'star-loop-linked-')), 'wt');
    await git(dir, 'worktree', 'add', '-q', '-b', 'side', linked);
    for (const top of [dir, linked]) {
      expect(await Git.topLevel(top)).toBe(top);
      const located = new Git(top);
      expect(await located.gitCommonDir()).toBe(
        await git(top, 'rev-parse', '--path-format=absolute', '--git-common-dir'),
      );
      expect(await located.currentBranch()).toBe(top === dir ? 'work' : 'side');
      expect(await new Git(top).gitCommonDir()).toBe(await located.gitCommonDir());
    }
  });

  it('the long-running lookup follows new commits, packed refs and gc; the branch comes from HEAD, detached too; remotes and diffs stay fresh', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    repo.keepAlive();
    onTestFinished(() => repo.close());
    const first = await repo.head();
    await writeFile(join(dir, 'a.txt'), 'two\n');
    await git(dir, 'commit', '-qam', 'two');
    await git(dir, 'pack-refs', '--all');
    await git(dir, 'gc', '-q');
    const second = await git(dir, 'rev-parse', 'HEAD');
    expect(await repo.head()).toBe(second);
    expect(second).not.toBe(first);
    expect(await repo.tree('HEAD')).toBe(await git(dir, 'rev-parse', 'HEAD^{tree}'));
    expect(await repo.resolve('refs/heads/nope')).toBeUndefined();
    expect(await repo.currentBranch()).toBe('work');
    await git(dir, 'switch', '-q', '--detach');
    expect(await repo.currentBranch()).toBeUndefined();
    await git(dir, 'switch', '-q', 'work');
    expect(await repo.remotes()).toEqual([]);
    await git(dir, 'remote', 'add', 'mirror', '/tmp/mirror.git');
    expect(await repo.remotes()).toEqual([{ name: 'mirror', url: '/tmp/mirror.git' }]);
    // Diffs between commit ids are kept; both paths of a rename count as changed.
    await git(dir, 'mv', 'a.txt', 'b.txt');
    await git(dir, 'commit', '-qm', 'rename');
    const third = await git(dir, 'rev-parse', 'HEAD');
    expect((await repo.filesChangedBetween(second, third)).sort()).toEqual(['a.txt', 'b.txt']);
    expect(await repo.changedFiles(second, third)).toEqual([{ status: 'R', oldPath: 'a.txt', path: 'b.txt' }]);
    expect(await repo.isAncestor(first ?? '', third)).toBe(true);
    expect(await repo.isAncestor(third, first ?? '')).toBe(false);
    // star-loop's own refs, written through one long-running update-ref transaction stream.
    await repo.keepRef('refs/star-loop/run/1', first ?? '');
    await repo.keepRef('refs/star-loop/run/2', third);
    expect(await git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/star-loop/')).toBe(
      `refs/star-loop/run/1 ${first}\nrefs/star-loop/run/2 ${third}`,
    );
    await expect(repo.keepRef('refs/heads/work', third)).rejects.toThrow('star-loop only writes its own refs');
  });

  it('commitAll commits everything, returns undefined when there is nothing, and works without a configured identity', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    await git(dir, 'config', '--unset', 'user.name');
    await git(dir, 'config', '--unset', 'user.email');
    // No identity anywhere: not in the repository, not in the user's global or system config.
    const saved = { global: process.env.GIT_CONFIG_GLOBAL, system: process.env.GIT_CONFIG_NOSYSTEM };
    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    process.env.GIT_CONFIG_NOSYSTEM = '1';
    onTestFinished(() => {
      for (const [key, value] of [
        ['GIT_CONFIG_GLOBAL', saved.global],
        ['GIT_CONFIG_NOSYSTEM', saved.system],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    });
    const repo = new Git(dir);
    expect(await repo.commitAll('nothing')).toBeUndefined();
    await writeFile(join(dir, 'new.txt'), 'new\n');
    const commit = await repo.commitAll('star-loop: save');
    expect(commit).toBe(await git(dir, 'rev-parse', 'HEAD'));
    expect(await git(dir, 'log', '-1', '--format=%an <%ae> %s')).toBe(
      'star-loop <star-loop@localhost> star-loop: save',
    );
    expect(await repo.workingChanges()).toEqual([]);
  });

  it('commitAll bypasses a failing pre-commit hook: a save point is never refused (claims are verified by the gates)', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    await writeFile(join(dir, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    await writeFile(join(dir, 'b.txt'), 'b\n');
    const repo = new Git(dir);
    expect(await repo.commitAll('save')).toBeDefined();
    expect(await git(dir, 'show', 'HEAD:b.txt')).toBe('b');
  });

  it('commitAll sees a same-size edit made in the second git last wrote the index, when it commits a second later', async () => {
    // git trusts an entry's stat data only for files older than the index: the racy case is an edit in the
    // index's own second. Set it up (retrying until the edit and the index share a second), then commit later.
    const second = (ms: number) => Math.floor(ms / 1000);
    let dir = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      dir = await gitdir({ 'a.txt': 'a\n' });
      await writeFile(join(dir, 'a.txt'), 'b\n');
      const [file, index] = await Promise.all([stat(join(dir, 'a.txt')), stat(join(dir, '.git/index'))]);
      if (second(file.mtimeMs) === second(index.mtimeMs)) break;
      dir = '';
    }
    expect(dir).not.toBe('');
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    expect(await new Git(dir).commitAll('save')).toBeDefined();
    expect(await git(dir, 'show', 'HEAD:a.txt')).toBe('b');
  });

  it('commitAll, kept alive: HEAD moves through the long-running writer; an index flag set since its last commit hides nothing', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const repo = new Git(dir);
    repo.keepAlive();
    onTestFinished(() => repo.close());
    await writeFile(join(dir, 'c.txt'), 'c\n');
    const first = await repo.commitAll('star-loop: one');
    expect(first).toBe(await git(dir, 'rev-parse', 'HEAD'));
    expect(await git(dir, 'reflog', '-1', '--format=%gs')).toBe("star-loop: committed the agent's work");
    expect(await git(dir, 'status', '--porcelain')).toBe('');
    // The agent hides two edits behind index flags, then puts the index's times back as they were.
    const index = join(dir, '.git/index');
    const before = await stat(index);
    await git(dir, 'update-index', '--assume-unchanged', 'a.txt');
    await git(dir, 'update-index', '--skip-worktree', 'b.txt');
    await writeFile(join(dir, 'a.txt'), 'A\n');
    await writeFile(join(dir, 'b.txt'), 'B\n');
    await utimes(index, before.atime, before.mtime);
    expect(await git(dir, 'status', '--porcelain')).toBe('');
    const second = await repo.commitAll('star-loop: two');
    expect(second).toBe(await git(dir, 'rev-parse', 'HEAD'));
    expect(await git(dir, 'rev-parse', 'HEAD~1')).toBe(first);
    expect(await git(dir, 'show', 'HEAD:a.txt')).toBe('A');
    expect(await git(dir, 'show', 'HEAD:b.txt')).toBe('B');
    // Its own index, untouched: nothing to ask, and a plain edit is committed as before.
    await writeFile(join(dir, 'c.txt'), 'C\n');
    expect(await repo.commitAll('star-loop: three')).toBe(await git(dir, 'rev-parse', 'HEAD'));
    expect(await git(dir, 'show', 'HEAD:c.txt')).toBe('C');
    expect(await git(dir, 'ls-files', '-v')).toBe('H a.txt\nH b.txt\nH c.txt');
  });

  it('commitAll from the paths status listed makes the tree `git add --all` makes: edits, removals, new folders, file<->folder, links, modes', async () => {
    const files = { 'a.txt': 'a\n', 'gone.txt': 'g\n', f: 'file\n', 'd/x.txt': 'x\n', 'run.sh': 'echo\n' };
    const mine = await gitdir(files);
    const theirs = await gitdir(files);
    const repo = new Git(mine);
    repo.keepAlive();
    onTestFinished(() => repo.close());
    // star-loop's own commit first: from then on the index is the one it wrote.
    for (const dir of [mine, theirs]) await writeFile(join(dir, 'first.txt'), '1\n');
    await repo.commitAll('first', await repo.workingChanges());
    await git(theirs, 'add', '--all');
    await git(theirs, 'commit', '-qm', 'first');
    expect(await git(mine, 'rev-parse', 'HEAD^{tree}')).toBe(await git(theirs, 'rev-parse', 'HEAD^{tree}'));
    for (const dir of [mine, theirs]) {
      await writeFile(join(dir, 'a.txt'), 'A\n');
      await rm(join(dir, 'gone.txt'));
      await mkdir(join(dir, 'new/deeper'), { recursive: true });
      await writeFile(join(dir, 'new/deeper/n.txt'), 'n\n');
      await rm(join(dir, 'f'));
      await mkdir(join(dir, 'f'));
      await writeFile(join(dir, 'f/inside.txt'), 'i\n');
      await rm(join(dir, 'd'), { recursive: true });
      await writeFile(join(dir, 'd'), 'now a file\n');
      await symlink('a.txt', join(dir, 'link'));
      await chmod(join(dir, 'run.sh'), 0o755);
    }
    const changes = await repo.workingChanges();
    expect(changes.length).toBeGreaterThan(5);
    const commit = await repo.commitAll('second', changes);
    expect(commit).toBe(await git(mine, 'rev-parse', 'HEAD'));
    await git(theirs, 'add', '--all');
    expect(await git(mine, 'rev-parse', 'HEAD^{tree}')).toBe(await git(theirs, 'write-tree'));
    expect(await repo.workingChanges()).toEqual([]);
  });

  it("commitAll, kept alive, writes its commit through hash-object: the very commit commit-tree writes, the user's identity", async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    repo.keepAlive();
    onTestFinished(() => repo.close());
    await writeFile(join(dir, 'b.txt'), 'b\n');
    const commit = (await repo.commitAll('star-loop: iteration 1: add b')) as string;
    expect(await git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s|%P', commit)).toBe(
      `Test User <test@example.invalid>|Test User <test@example.invalid>|star-loop: iteration 1: add b|${await git(dir, 'rev-parse', 'HEAD~1')}`,
    );
    // commit-tree, given the same moment, writes the same object.
    const date = await git(dir, 'log', '-1', '--format=%ad', '--date=raw', commit);
    const again = await execa(
      'git',
      ['commit-tree', `${commit}^{tree}`, '-p', `${commit}~1`, '-m', 'star-loop: iteration 1: add b'],
      {
        cwd: dir,
        env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      },
    );
    expect(again.stdout).toBe(commit);
    expect((await execa('git', ['fsck', '--strict', '--no-dangling'], { cwd: dir })).exitCode).toBe(0);
  });

  it('commitMessages: every commit with its own message, an empty message too (git log, not kept alive)', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const start = await git(dir, 'rev-parse', 'HEAD');
    const ids: string[] = [];
    for (const message of ['first\n\nbody', '', 'third']) {
      await git(dir, 'commit', '-q', '--allow-empty', '--allow-empty-message', '-m', message);
      ids.unshift(await git(dir, 'rev-parse', 'HEAD'));
    }
    expect(await new Git(dir).commitMessages(start, ids[0] as string)).toEqual([
      { commit: ids[0], text: 'third\n' },
      { commit: ids[1], text: '' },
      { commit: ids[2], text: 'first\n\nbody\n' },
    ]);
  });

  it('reports no HEAD in a repository without commits, and the files changed between commits', async () => {
    const empty = await gitdir({}, { commit: false });
    expect(await new Git(empty).head()).toBeUndefined();
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    const start = (await repo.head())!;
    await writeFile(join(dir, 'b.txt'), 'b\n');
    await writeFile(join(dir, 'a.txt'), 'a2\n');
    const end = (await repo.commitAll('two files'))!;
    expect((await repo.filesChangedBetween(start, end)).sort()).toEqual(['a.txt', 'b.txt']);
    expect(await repo.tree(start)).not.toBe(await repo.tree(end));
  });
});
