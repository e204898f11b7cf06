import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/git.js';
import { driverCommands, driverGuard, GUARDED_ENV, splitConfigScopes } from '../../src/git/git-guard.js';
import { git, gitdir } from '../helpers/gitdir.js';

/**
 * An agent outside a sandbox can write the user's global git config, the repository's config, its hooks and
 * .gitattributes. None of what it plants there may run inside star-loop's own git commands: each vector is
 * planted for real, star-loop's Git runs the commands that would trigger it, and the evil program must not
 * have run.
 */
let marker: string;
let evil: string;

beforeEach(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-evil-'));
  marker = join(dir, 'ran');
  evil = join(dir, 'evil.sh');
  // Behaves as a filter or textconv would (copies stdin), so git's work goes on; leaves a mark that it ran.
  await writeFile(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`);
  await chmod(evil, 0o755);
});

const ran = () => existsSync(marker);

describe("code planted in git's config, hooks and attributes never runs inside star-loop's git", () => {
  it('core.fsmonitor in the global config (~/.gitconfig) and in the repository config', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const home = await mkdtemp(join(tmpdir(), 'star-loop-home-'));
    await writeFile(join(home, '.gitconfig'), `[core]\n\tfsmonitor = ${evil}\n`);
    const saved = process.env.HOME;
    process.env.HOME = home;
    onTestFinished(() => {
      process.env.HOME = saved;
    });
    await writeFile(join(dir, 'a.txt'), 'changed\n');
    const repo = new Git(dir);
    expect(await repo.workingChanges()).toEqual([{ code: ' M', path: 'a.txt' }]);
    await git(dir, 'config', 'core.fsmonitor', evil);
    expect(await repo.workingChanges()).toEqual([{ code: ' M', path: 'a.txt' }]);
    expect(await repo.commitAll('star-loop: save')).toBeDefined();
    expect(ran()).toBe(false);
  });

  it('hooks, symlinked into .git/hooks or pointed at by core.hooksPath: commit, refs, merges and worktrees', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    for (const hook of ['pre-commit', 'post-commit', 'reference-transaction', 'post-checkout', 'post-merge']) {
      await symlink(evil, join(dir, '.git', 'hooks', hook));
    }
    const repo = new Git(dir);
    await writeFile(join(dir, 'a.txt'), 'b\n');
    const commit = await repo.commitAll('star-loop: save');
    expect(commit).toBeDefined();
    await repo.keepRef('refs/star-loop/test/1', commit as string);
    const tree = join(await mkdtemp(join(tmpdir(), 'star-loop-wt-')), 'tree');
    await repo.addStagedWorktree(tree, 'main', 'work');
    await repo.removeOwnWorktree(tree);
    const hooks = join(dir, 'my-hooks');
    await mkdir(hooks);
    await symlink(evil, join(hooks, 'post-commit'));
    await git(dir, 'config', 'core.hooksPath', hooks);
    await writeFile(join(dir, 'a.txt'), 'c\n');
    expect(await repo.commitAll('star-loop: save again')).toBeDefined();
    expect(ran()).toBe(false);
    // The project's own hooks are still where star-loop looks for them to run them itself (check-hooks).
    expect(await repo.hooksDir()).toBe(hooks);
  });

  it('clean and smudge filters from .gitattributes and the repository config', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n', '.gitattributes': '*.txt filter=ev\n' });
    const repo = new Git(dir);
    await repo.workingChanges(); // star-loop's first look, at recon: before the agent planted anything
    await git(dir, 'config', 'filter.ev.clean', evil);
    await git(dir, 'config', 'filter.ev.smudge', evil);
    await git(dir, 'config', 'filter.ev.required', 'true');
    await writeFile(join(dir, 'a.txt'), 'changed\n');
    expect(await repo.workingChanges()).toEqual([{ code: ' M', path: 'a.txt' }]);
    const commit = await repo.commitAll('star-loop: save');
    expect(await repo.showFile(commit as string, 'a.txt')).toBe('changed\n');
    const tree = join(await mkdtemp(join(tmpdir(), 'star-loop-wt-')), 'tree');
    await repo.addStagedWorktree(tree, 'main', 'work');
    await repo.removeOwnWorktree(tree);
    expect(ran()).toBe(false);
  });

  it('a -diff (binary) attribute cannot hide text from the diff the checks read; textconv never runs', async () => {
    const dir = await gitdir({ 'notes.txt': 'notes\n', 'r.md': 'r\n' });
    const base = await git(dir, 'rev-parse', 'HEAD');
    const repo = new Git(dir);
    await repo.workingChanges();
    await writeFile(join(dir, '.gitattributes'), 'notes.txt -diff\n*.md diff=tc\n');
    await git(dir, 'config', 'diff.tc.textconv', evil);
    await git(dir, 'config', 'diff.external', evil);
    await writeFile(join(dir, 'notes.txt'), 'notes\ntoken = ghp_0123456789abcdefghijABCDEFGHIJ012345\n');
    await writeFile(join(dir, 'r.md'), 'r\nmore\n');
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-qm', 'hide');
    const diff = await repo.unifiedDiff(base, await git(dir, 'rev-parse', 'HEAD'));
    expect(diff).toContain('+token = ghp_0123456789abcdefghijABCDEFGHIJ012345');
    expect(diff).toContain('+more');
    expect(ran()).toBe(false);
  });

  it('commit signing with a planted gpg.program', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    await git(dir, 'config', 'commit.gpgSign', 'true');
    await git(dir, 'config', 'gpg.program', evil);
    await writeFile(join(dir, 'a.txt'), 'b\n');
    expect(await new Git(dir).commitAll('star-loop: save')).toBeDefined();
    expect(ran()).toBe(false);
  });

  it("a merge driver in the repository config, in the fleet's merge-tree", async () => {
    const dir = await gitdir({ 'a.txt': 'a\n', '.gitattributes': '*.txt merge=ev\n' });
    const repo = new Git(dir);
    await repo.workingChanges();
    await git(dir, 'config', 'merge.ev.driver', `${evil} %O %A %B`);
    await git(dir, 'switch', '-qc', 'other');
    await writeFile(join(dir, 'a.txt'), 'other\n');
    await git(dir, 'commit', '-qam', 'other');
    await git(dir, 'switch', '-q', 'work');
    await writeFile(join(dir, 'a.txt'), 'work\n');
    await git(dir, 'commit', '-qam', 'work');
    const merged = await repo.mergeTree('work', 'other');
    expect(merged.conflicts).toEqual(['a.txt']);
    expect(ran()).toBe(false);
  });

  it('one config reading says both the whole config and the part git reads when guarded (pure), as git itself does', async () => {
    const text = [
      'system',
      'a.b\n1',
      'global',
      'user.name\nme',
      'local',
      'filter.x.clean\ny',
      'command',
      'c.d',
      '',
    ].join('\0');
    expect(splitConfigScopes(text)).toEqual({
      all: 'a.b\n1\0user.name\nme\0filter.x.clean\ny\0c.d\0',
      repository: 'filter.x.clean\ny\0c.d\0',
    });
    // Checked against git: the repository part of one reading is what a reading with the guarded env lists.
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const inc = join(dir, 'included.cfg');
    await writeFile(inc, '[filter "inc"]\n\tclean = cat\n');
    await git(dir, 'config', 'include.path', inc);
    const home = await mkdtemp(join(tmpdir(), 'star-loop-home-'));
    await writeFile(join(home, '.gitconfig'), '[diff "g"]\n\ttextconv = cat\n');
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const scoped = await execa('git', ['config', '--list', '--includes', '--show-scope', '-z'], { cwd: dir, env });
    const guarded = await execa('git', ['config', '--list', '--includes', '-z'], {
      cwd: dir,
      env: { ...env, ...GUARDED_ENV },
    });
    const split = splitConfigScopes(scoped.stdout);
    expect(split.repository).toBe(guarded.stdout);
    expect(split.all).toContain('diff.g.textconv\ncat\0');
    expect(split.repository).toContain('filter.inc.clean\ncat\0');
  });

  it('keeps the drivers the user had before any agent ran (git-lfs, say) and switches off the rest (pure)', () => {
    const list = [
      'core.bare\nfalse',
      'filter.lfs.clean\ngit-lfs clean -- %f',
      'filter.Ev.clean\nx',
      'diff.tc.textconv\nx',
    ];
    const current = driverCommands([...list, 'merge.m.driver\nx', ''].join('\0'));
    const trusted = driverCommands(list.slice(0, 2).join('\0'));
    expect(driverGuard(trusted, current)).toEqual([
      '-c',
      'filter.lfs.clean=git-lfs clean -- %f',
      '-c',
      'filter.Ev.clean=',
      '-c',
      'filter.Ev.required=false',
      '-c',
      'diff.tc.textconv=',
      '-c',
      'merge.m.driver=false',
    ]);
  });

  it("a filter the user had before the run still applies to star-loop's own commits", async () => {
    const dir = await gitdir({ 'a.txt': 'a\n', '.gitattributes': '*.txt filter=up\n' });
    await git(dir, 'config', 'filter.up.clean', 'tr a-z A-Z');
    const repo = new Git(dir);
    await writeFile(join(dir, 'a.txt'), 'lower\n');
    const commit = await repo.commitAll('star-loop: save');
    expect(await repo.showFile(commit as string, 'a.txt')).toBe('LOWER\n');
  });
});

describe("star-loop commits from the files on disk, never trusting the agent's index", () => {
  it('a change hidden behind skip-worktree or assume-unchanged is committed; the index is left clean, flags cleared', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    await git(dir, 'update-index', '--skip-worktree', 'a.txt');
    await git(dir, 'update-index', '--assume-unchanged', 'b.txt');
    await writeFile(join(dir, 'a.txt'), 'hidden edit\n');
    await writeFile(join(dir, 'b.txt'), 'another hidden edit\n');
    expect(await git(dir, 'status', '--porcelain')).toBe('');
    const repo = new Git(dir);
    const commit = await repo.commitAll('star-loop: iteration 1 (the agent’s work)');
    expect(commit).toBeDefined();
    expect(await repo.showFile(commit as string, 'a.txt')).toBe('hidden edit\n');
    expect(await repo.showFile(commit as string, 'b.txt')).toBe('another hidden edit\n');
    expect(await git(dir, 'ls-files', '-v', '-t')).toBe('H a.txt\nH b.txt\nH c.txt');
    expect(await git(dir, 'status', '--porcelain')).toBe('');
    expect(await git(dir, 'rev-parse', 'work')).toBe(commit);
  });

  it('commits nothing when the tree on disk is HEAD’s; a first commit in an empty repository works', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    expect(await new Git(dir).commitAll('nothing')).toBeUndefined();
    const empty = await gitdir({}, { commit: false });
    await writeFile(join(empty, 'x.txt'), 'x\n');
    const first = await new Git(empty).commitAll('initial commit');
    expect(await git(empty, 'log', '--format=%s')).toBe('initial commit');
    expect(await git(empty, 'rev-parse', 'HEAD')).toBe(first);
  });
});

describe('protected paths are checked on disk, not through git', () => {
  it('an edit hidden by skip-worktree, or to a git-ignored file, is still a protected-path violation', async () => {
    const { checkSafety, guardSnapshot } = await import('../../src/safety/check-safety.js');
    const dir = await gitdir({
      '.gitignore': '.env\n',
      '.github/workflows/ci.yml': 'on: push\n',
      'src/a.js': 'a\n',
    });
    await writeFile(join(dir, '.env'), 'TOKEN=old\n');
    const repo = new Git(dir);
    const guard = {
      git: repo,
      root: dir,
      gitDir: join(dir, '.git'),
      starDir: join(dir, '.star'),
      branch: 'work',
      protectedPaths: ['.env*', '.github/workflows/**'],
      allowPush: true,
    };
    const before = await guardSnapshot(guard);
    await git(dir, 'update-index', '--skip-worktree', '.github/workflows/ci.yml');
    await writeFile(join(dir, '.github/workflows/ci.yml'), 'on: push\njobs: {}\n');
    await writeFile(join(dir, '.env'), 'TOKEN=new\n');
    // git sees only the new .env.local: the ignored .env and the flagged workflow are invisible to it.
    expect(await git(dir, 'status', '--porcelain')).toBe('');
    await writeFile(join(dir, '.env.local'), 'MORE=1\n');
    const violations = await checkSafety(guard, before);
    expect(
      violations
        .filter((v) => v.rule === 'protected-path')
        .map((v) => v.file)
        .sort(),
    ).toEqual(['.env', '.env.local', '.github/workflows/ci.yml']);
  });
});
