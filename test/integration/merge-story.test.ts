import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MergeInput, mergeStory } from '../../src/fleet/merge-story.js';
import { Git } from '../../src/git/git.js';
import { git, gitdir } from '../helpers/gitdir.js';

/**
 * The integration branch `work` in the root, a story branch in a worktree of its own, and a gate that fails
 * only when a.txt says `broken` and b.txt exists.
 */
async function setup(files: Record<string, string> = {}) {
  const root = await gitdir({ 'a.txt': 'one\n', 'gate.sh': '! grep -q broken a.txt || test ! -f b.txt\n', ...files });
  const aux = await mkdtemp(join(tmpdir(), 'star-loop-merge-'));
  const tree = join(aux, 'wt');
  await git(root, 'worktree', 'add', '-q', '-b', 'work--S1', tree, 'work');
  const input = (extra: Partial<MergeInput> = {}): MergeInput => ({
    root: new Git(root),
    tree: new Git(tree),
    integration: 'work',
    storyBranch: 'work--S1',
    story: 'S1',
    title: 'Story one',
    attempt: 1,
    prd: 'prd.json',
    gates: [{ name: 'gate', command: 'sh gate.sh', kind: 'test', source: 'test' }],
    baseline: [{ name: 'gate', command: 'sh gate.sh', status: 'pass' }],
    place: {
      git: new Git(root),
      dependencyRoot: tree,
      dependencyDirs: [],
      hosts: [],
      env: process.env,
      timeoutMs: 30_000,
    },
    workDir: aux,
    logFile: join(aux, 'gates.log'),
    ...extra,
  });
  return { root, tree, input };
}

const commit = async (dir: string, file: string, text: string, message: string) => {
  await writeFile(join(dir, file), text);
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-qm', message);
};

describe('the merge serializer, on real repositories', () => {
  it('a clean merge: a merge commit, the gates on it, then the integration branch fast-forwards; doing it again is a no-op', async () => {
    const { root, tree, input } = await setup();
    await commit(tree, 'b.txt', 'story\n', 'story work');
    await commit(root, 'c.txt', 'other story\n', 'merged earlier');
    const before = await git(root, 'rev-parse', 'work');
    const result = await mergeStory(input());
    expect(result.kind).toBe('merged');
    if (result.kind !== 'merged') return;
    expect(await git(root, 'rev-parse', 'work')).toBe(result.commit);
    expect((await git(root, 'rev-parse', `${result.commit}^1`)) === before).toBe(true);
    expect(await git(root, 'log', '-1', '--format=%s', result.commit)).toBe('star-loop fleet: merge S1 (Story one)');
    expect(await readFile(join(root, 'b.txt'), 'utf8')).toBe('story\n');
    expect(result.gates.map((g) => g.outcome)).toEqual(['ok']);
    // The story's branch moved forward to the merge it was tested on.
    expect(await git(tree, 'rev-parse', 'HEAD')).toBe(result.commit);
    // After a crash between the merge and its record: recognised as merged, nothing new.
    const again = await mergeStory(input());
    expect(again).toMatchObject({ kind: 'merged', commit: result.commit });
    expect(await git(root, 'rev-parse', 'work')).toBe(result.commit);
  });

  it('a conflict: nothing moves, the conflicting files are the findings', async () => {
    const { root, tree, input } = await setup();
    await commit(tree, 'a.txt', 'story\n', 'story edits a');
    await commit(root, 'a.txt', 'other\n', 'another story edits a');
    const [rootHead, treeHead] = [await git(root, 'rev-parse', 'HEAD'), await git(tree, 'rev-parse', 'HEAD')];
    const result = await mergeStory(input());
    expect(result.kind).toBe('conflict');
    if (result.kind !== 'conflict') return;
    expect(result.findings[0]?.detail).toContain('conflicts in a.txt');
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(rootHead);
    expect(await git(tree, 'rev-parse', 'HEAD')).toBe(treeHead);
    expect(await git(root, 'status', '--porcelain')).toBe('');
  });

  it('a gate red only after the merge: the integration branch does not move', async () => {
    const { root, tree, input } = await setup();
    await commit(tree, 'b.txt', 'fine\n', 'story adds b');
    await commit(root, 'a.txt', 'broken\n', 'another story');
    const rootHead = await git(root, 'rev-parse', 'HEAD');
    const result = await mergeStory(input());
    expect(result.kind).toBe('failed-after-merge');
    if (result.kind !== 'failed-after-merge') return;
    expect(result.findings[0]?.detail).toMatch(/^after merging into work .*gate "gate"/);
    expect(await git(root, 'rev-parse', 'HEAD')).toBe(rootHead);
  });

  it('the root on another branch, or with changes in the way: blocked, nothing merged', async () => {
    const { root, tree, input } = await setup();
    await commit(tree, 'b.txt', 'story\n', 'story adds b');
    await git(root, 'switch', '-q', 'main');
    expect(await mergeStory(input())).toMatchObject({ kind: 'blocked' });
    await git(root, 'switch', '-q', 'work');
    await writeFile(join(root, 'b.txt'), 'my own work\n');
    const blocked = await mergeStory(input());
    expect(blocked.kind).toBe('blocked');
    expect(await readFile(join(root, 'b.txt'), 'utf8')).toBe('my own work\n');
    expect(await git(root, 'rev-parse', 'work')).toBe(await git(root, 'rev-parse', 'main'));
  });
});
