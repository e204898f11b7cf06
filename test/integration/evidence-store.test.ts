import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/git.js';
import { EvidenceStore, evidenceDir } from '../../src/safety/evidence-store.js';
import { git, gitdir } from '../helpers/gitdir.js';

describe('the evidence store, outside the repository', () => {
  it('keeps every kept commit when the refs are deleted, the reflog expired and the repository pruned; the recovery command works', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const state = await mkdtemp(join(tmpdir(), 'star-loop-state-'));
    const repo = new Git(dir);
    const commonDir = await repo.gitCommonDir();
    const store = new EvidenceStore(repo, commonDir, evidenceDir(commonDir, { XDG_STATE_HOME: state }));
    expect(store.dir.startsWith(join(state, 'star-loop', 'evidence'))).toBe(true);
    await writeFile(join(dir, 'a.txt'), 'accepted work\n');
    const accepted = (await repo.commitAll('accepted work')) as string;
    await repo.keepRef('refs/star-loop/run1/3-end', accepted);
    expect(await store.keep('run1')).toBeUndefined();

    // The attack: the branch moved back, star-loop's refs deleted, reflogs expired, everything unreachable pruned.
    await git(dir, 'update-ref', '-d', 'refs/star-loop/run1/3-end');
    await git(dir, 'reset', '-q', '--hard', 'HEAD~1');
    await git(dir, 'reflog', 'expire', '--expire=now', '--all');
    await git(dir, 'gc', '-q', '--prune=now');
    expect((await execa('git', ['cat-file', '-e', accepted], { cwd: dir, reject: false })).exitCode).not.toBe(0);

    const [found] = await store.locate(['refs/star-loop/run1/3-end']);
    expect(found).toMatchObject({ ref: 'refs/star-loop/run1/3-end', found: 'store' });
    await execa('sh', ['-c', found?.command ?? 'false'], { cwd: dir });
    expect(await git(dir, 'rev-parse', 'recovered-3-end')).toBe(accepted);
    expect(await git(dir, 'show', 'recovered-3-end:a.txt')).toBe('accepted work');
  });

  it('says lost, never promising a ref it cannot find; says the repository when it is still there', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    const commonDir = await repo.gitCommonDir();
    const state = await mkdtemp(join(tmpdir(), 'star-loop-state-'));
    const store = new EvidenceStore(repo, commonDir, evidenceDir(commonDir, { XDG_STATE_HOME: state }));
    await repo.keepRef('refs/star-loop/run2/1', (await repo.head()) as string);
    expect(await store.locate(['refs/star-loop/run2/1', 'refs/star-loop/run2/9'])).toEqual([
      { ref: 'refs/star-loop/run2/1', found: 'repository', command: 'git branch recovered-1 refs/star-loop/run2/1' },
      { ref: 'refs/star-loop/run2/9', found: 'lost' },
    ]);
  });
  it('a commit already in the store gets its new ref there directly; a new commit is sent as a pack; settle copies the rest', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    const commonDir = await repo.gitCommonDir();
    const state = await mkdtemp(join(tmpdir(), 'star-loop-state-'));
    const store = new EvidenceStore(repo, commonDir, evidenceDir(commonDir, { XDG_STATE_HOME: state }));
    const start = (await repo.head()) as string;
    await repo.keepRef('refs/star-loop/run3/1', start);
    expect(await store.keep('run3', [{ ref: 'refs/star-loop/run3/1', commit: start }])).toBeUndefined();
    // The next iteration starts where this one ended: only the ref is written in the store.
    await repo.keepRef('refs/star-loop/run3/1-end', start);
    await repo.keepRef('refs/star-loop/run3/2', start);
    expect(await store.keep('run3', [{ ref: 'refs/star-loop/run3/2', commit: start }])).toBeUndefined();
    const inStore = (ref: string) =>
      execa('git', ['rev-parse', '--verify', '--quiet', ref], { cwd: store.dir, reject: false }).then((r) => r.stdout);
    expect(await inStore('refs/star-loop/run3/2')).toBe(start);
    // A new commit: fetched, with every run ref written since (the -end ref above too).
    await writeFile(join(dir, 'a.txt'), 'b\n');
    const next = (await repo.commitAll('next')) as string;
    await repo.keepRef('refs/star-loop/run3/2-end', next);
    expect(await store.keep('run3', [{ ref: 'refs/star-loop/run3/2-end', commit: next }])).toBeUndefined();
    expect(await inStore('refs/star-loop/run3/2-end')).toBe(next);
    // A ref of the run no copy named (1-end) is copied when the run settles, by one fetch of the run's refs.
    expect(await inStore('refs/star-loop/run3/1-end')).toBe('');
    expect(await store.settle()).toEqual([]);
    expect(await inStore('refs/star-loop/run3/1-end')).toBe(start);
    // A commit the repository does not have: the copy fails and says so, nothing is thrown.
    const problem = await store.keep('run3', [{ ref: 'refs/star-loop/run3/9', commit: 'e'.repeat(40) }]);
    expect(problem).toMatch(/could not copy star-loop's refs into the evidence store .*: .+/);
    // The new commit went as a pack built against what the store holds: its objects are there.
    const show = await execa('git', ['show', `${next}:a.txt`], { cwd: store.dir, reject: false });
    expect(show.stdout).toBe('b');
  });
  it('deferred (agents in the sandbox): keep() copies nothing, settle() and locate() copy the run once and say what failed', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const repo = new Git(dir);
    const commonDir = await repo.gitCommonDir();
    const state = await mkdtemp(join(tmpdir(), 'star-loop-state-'));
    const store = new EvidenceStore(repo, commonDir, evidenceDir(commonDir, { XDG_STATE_HOME: state }));
    store.deferred = true;
    const head = (await repo.head()) as string;
    await repo.keepRef('refs/star-loop/run4/1', head);
    expect(await store.keep('run4', [{ ref: 'refs/star-loop/run4/1', commit: head }])).toBeUndefined();
    await writeFile(join(dir, 'a.txt'), 'b\n');
    const next = (await repo.commitAll('next')) as string;
    await repo.keepRef('refs/star-loop/run4/1-end', next);
    await store.keep('run4', [{ ref: 'refs/star-loop/run4/1-end', commit: next }]);
    expect(existsSync(store.dir)).toBe(false);
    expect(await store.settle()).toEqual([]);
    // Done: the repository's refs gone, the store answers.
    await git(dir, 'update-ref', '-d', 'refs/star-loop/run4/1');
    await git(dir, 'update-ref', '-d', 'refs/star-loop/run4/1-end');
    const found = await store.locate(['refs/star-loop/run4/1', 'refs/star-loop/run4/1-end']);
    expect(found.map((f) => f.found)).toEqual(['store', 'store']);
    // locate() makes a copy still due before it looks.
    await repo.keepRef('refs/star-loop/run4/2', next);
    await store.keep('run4', [{ ref: 'refs/star-loop/run4/2', commit: next }]);
    await git(dir, 'update-ref', '-d', 'refs/star-loop/run4/2');
    expect((await store.locate(['refs/star-loop/run4/2']))[0]?.found).toBe('lost');
    await repo.keepRef('refs/star-loop/run4/3', next);
    await store.keep('run4', [{ ref: 'refs/star-loop/run4/3', commit: next }]);
    const [third] = await store.locate(['refs/star-loop/run4/3']);
    await git(dir, 'update-ref', '-d', 'refs/star-loop/run4/3');
    expect(third?.found).toBe('repository');
    expect((await store.locate(['refs/star-loop/run4/3']))[0]?.found).toBe('store');

    // A deferred copy that fails is said by settle(), once.
    await writeFile(join(state, 'not-a-folder'), '');
    const broken = new EvidenceStore(repo, commonDir, join(state, 'not-a-folder', 'store.git'));
    broken.deferred = true;
    expect(await broken.keep('run4', [{ ref: 'refs/star-loop/run4/2', commit: head }])).toBeUndefined();
    const problems = await broken.settle();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('could not copy star-loop');
    expect(await broken.settle()).toEqual([]);
  });
});
