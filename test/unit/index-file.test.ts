import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCacheTree, serializeCacheTree } from '../../src/git/cache-tree.js';
import { Entries, parseIndex, serializeIndex } from '../../src/git/index-file.js';
import { git, gitdir } from '../helpers/gitdir.js';

const FILES = {
  'a.txt': 'a\n',
  'é t.txt': 'accent\n',
  'src/b.js': 'b\n',
  'src/deep/c.js': 'c\n',
  'src/deep/er/d.js': 'd\n',
  'src/z.js': 'z\n',
  'zz/e.txt': 'e\n',
};

describe('the index file and its cache-tree, read and written back byte for byte (against indexes git wrote)', () => {
  it('an index with a cache-tree (after write-tree) comes back exactly as git wrote it, checksum aside', async () => {
    const dir = await gitdir(FILES);
    // A name of 4095 bytes or more has no length in its entry's flags: it ends at its NUL (no file: too long).
    const blob = await git(dir, 'rev-parse', 'HEAD:a.txt');
    await git(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},${'long/'.repeat(830)}f.txt`);
    const root = await git(dir, 'write-tree'); // fills the cache-tree in the index
    const data = await readFile(join(dir, '.git/index'));
    const parsed = parseIndex(data, 20);
    if (typeof parsed === 'string') throw new Error(parsed);
    const entries = Entries.of(parsed);
    const paths = Array.from({ length: entries.length }, (_, i) => entries.path(i));
    expect(paths.map((p) => Buffer.from(p, 'latin1').toString('utf8'))).toEqual(
      (await git(dir, 'ls-files', '-z')).split('\0').filter(Boolean),
    );
    const staged = (await git(dir, 'ls-files', '-s')).split('\n');
    expect(staged[1]).toBe(`${entries.mode(1).toString(8)} ${entries.oid(1)} 0\t${paths[1]}`);
    expect(parsed.tree).toBeDefined();
    expect(Buffer.concat(serializeIndex(parsed, entries, parsed.tree))).toEqual(data.subarray(0, data.length - 20));
    const cache = parseCacheTree(parsed.tree as Buffer, 20);
    expect(cache?.get('')?.oid).toBe(root);
    expect(cache?.get('src/deep')).toEqual({
      count: 2,
      oid: await git(dir, 'rev-parse', 'HEAD:src/deep'),
      children: ['er'],
    });
    expect(serializeCacheTree(cache as Map<string, never>, 20)).toEqual(parsed.tree);
  });

  it('a folder git has not worked out yet (-1) is read and written as such', async () => {
    const dir = await gitdir(FILES);
    await git(dir, 'write-tree');
    await writeFile(join(dir, 'src/deep/c.js'), 'changed\n');
    await git(dir, 'add', 'src/deep/c.js'); // invalidates src/deep, src and the root
    const data = await readFile(join(dir, '.git/index'));
    const parsed = parseIndex(data, 20);
    if (typeof parsed === 'string') throw new Error(parsed);
    const cache = parseCacheTree(parsed.tree as Buffer, 20);
    expect(cache?.get('')?.count).toBe(-1);
    expect(cache?.get('src/deep')).toEqual({ count: -1, children: ['er'] });
    expect(cache?.get('zz')?.oid).toBe(await git(dir, 'rev-parse', 'HEAD:zz'));
    expect(serializeCacheTree(cache as Map<string, never>, 20)).toEqual(parsed.tree);
  });

  it('refuses what it does not write exactly: version 4, a split index, a flagged entry', async () => {
    const refusal = async (setup: (dir: string) => Promise<unknown>) => {
      const dir = await gitdir(FILES);
      await setup(dir);
      return parseIndex(await readFile(join(dir, '.git/index')), 20);
    };
    expect(await refusal((d) => git(d, 'update-index', '--index-version', '4'))).toBe('index version 4');
    expect(await refusal((d) => git(d, 'update-index', '--split-index'))).toBe('index extension "link"');
    expect(await refusal((d) => git(d, 'update-index', '--skip-worktree', 'a.txt'))).toBe(
      'an unmerged or flagged entry',
    );
    expect(await refusal((d) => git(d, 'update-index', '--assume-unchanged', 'a.txt'))).toBe(
      'an unmerged or flagged entry',
    );
    expect(parseIndex(Buffer.from('not an index at all, not at all'), 20)).toBe('not an index file');
  });
});
