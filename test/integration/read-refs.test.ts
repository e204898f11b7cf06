import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/git.js';
import { parsePackedRefs, readRefs } from '../../src/git/read-refs.js';
import { git, gitdir } from '../helpers/gitdir.js';

/** What git itself says: the reference the file reading must match. */
async function forEachRef(dir: string, prefix: string): Promise<Map<string, string>> {
  const out = await git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', prefix);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

describe('remote-tracking refs read from git’s files, no process', () => {
  it('matches for-each-ref: packed, loose over packed, nested names, a symbolic HEAD, after fetch and prune', async () => {
    const origin = await gitdir({ 'a.txt': 'a\n' });
    await git(origin, 'branch', 'feature/deep/x');
    await git(origin, 'tag', '-a', 'v1', '-m', 'v1');
    const dir = await gitdir({});
    await git(dir, 'remote', 'add', 'origin', origin);
    await git(dir, 'fetch', '-q', 'origin');
    await git(dir, 'remote', 'set-head', 'origin', 'main');
    const commonDir = await new Git(dir).gitCommonDir();
    expect(await readRefs(commonDir, 'refs/remotes/')).toEqual(await forEachRef(dir, 'refs/remotes/'));

    await git(dir, 'pack-refs', '--all');
    // A loose ref newer than its packed line: the loose one wins, as in git.
    await git(origin, 'commit', '-q', '--allow-empty', '-m', 'more');
    await git(dir, 'fetch', '-q', 'origin');
    const after = await readRefs(commonDir, 'refs/remotes/');
    expect(after).toEqual(await forEachRef(dir, 'refs/remotes/'));
    expect(after?.get('refs/remotes/origin/HEAD')).toBe(after?.get('refs/remotes/origin/main'));

    await git(origin, 'branch', '-D', 'feature/deep/x');
    await git(dir, 'fetch', '-q', '--prune', 'origin');
    expect(await readRefs(commonDir, 'refs/remotes/')).toEqual(await forEachRef(dir, 'refs/remotes/'));
    // Through Git, as the safety check asks, once it knows where the git directory is.
    const repo = new Git(dir);
    await repo.gitCommonDir();
    expect(await repo.refs('refs/remotes/')).toEqual(await forEachRef(dir, 'refs/remotes/'));
  });

  it('packed-refs: the header and peeled lines are not refs (pure)', () => {
    const id = 'a'.repeat(40);
    const text = `# pack-refs with: peeled fully-peeled sorted \n${id} refs/remotes/o/m\n^${'b'.repeat(40)}\n${id} refs/tags/v1\n`;
    expect(parsePackedRefs(text, 'refs/remotes/')).toEqual(new Map([['refs/remotes/o/m', id]]));
  });
});
