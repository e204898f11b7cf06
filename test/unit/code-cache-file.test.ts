import { describe, expect, it } from 'vitest';
import { type BundleIdentity, codeCacheDir, codeCacheName } from '../../src/util/code-cache-file.js';

describe('codeCacheDir', () => {
  it.each([
    [{}, 'linux', '/home/u', '/home/u/.cache/star-loop'],
    [{ XDG_CACHE_HOME: '/var/cache/u' }, 'linux', '/home/u', '/var/cache/u/star-loop'],
    [{ XDG_CACHE_HOME: '' }, 'linux', '/home/u', '/home/u/.cache/star-loop'],
    [{}, 'darwin', '/Users/u', '/Users/u/Library/Caches/star-loop'],
    [{ STAR_LOOP_CODE_CACHE: '/tmp/cc', XDG_CACHE_HOME: '/x' }, 'linux', '/home/u', '/tmp/cc'],
    [{ STAR_LOOP_CODE_CACHE: 'off' }, 'linux', '/home/u', undefined],
    [{ STAR_LOOP_CODE_CACHE: '0' }, 'darwin', '/Users/u', undefined],
    [{}, 'win32', 'C:\\Users\\u', undefined],
    [{ STAR_LOOP_CODE_CACHE: 'cache' }, 'linux', '/home/u', '/work/repo/cache'],
    [{ STAR_LOOP_CODE_CACHE: '../cc' }, 'darwin', '/Users/u', '/work/cc'],
    [{ XDG_CACHE_HOME: 'relative/cache' }, 'linux', '/home/u', '/home/u/.cache/star-loop'],
  ] as const)('%o on %s with home %s: %s', (env, platform, home, expected) => {
    expect(codeCacheDir(env, platform, home, '/work/repo')).toBe(expected);
  });
});

describe('codeCacheName', () => {
  const id: BundleIdentity = {
    path: '/usr/lib/node_modules/star-loop/dist/cli.cjs',
    dev: 2049n,
    ino: 1234n,
    size: 1_231_486n,
    mtimeNs: 1_764_600_000_000_000_000n,
    ctimeNs: 1_764_600_000_000_000_001n,
    nodeVersion: 'v20.20.2',
    arch: 'x64',
  };

  it('is a plain file name, the same for the same bundle and Node', () => {
    expect(codeCacheName(id)).toMatch(/^cli-[0-9a-f]{24}\.v8$/);
    expect(codeCacheName({ ...id })).toBe(codeCacheName(id));
  });

  it.each([
    ['another path', { path: '/home/u/project/node_modules/star-loop/dist/cli.cjs' }],
    ['a rebuild of the same length (new inode)', { ino: 1235n }],
    ['a rewrite in place (new change time)', { ctimeNs: id.ctimeNs + 1n }],
    ['a modification time put back, change time moved', { ctimeNs: id.ctimeNs + 10n, mtimeNs: id.mtimeNs }],
    ['another Node', { nodeVersion: 'v22.12.0' }],
    ['another architecture', { arch: 'arm64' }],
  ])('differs for %s', (_, change) => {
    expect(codeCacheName({ ...id, ...change })).not.toBe(codeCacheName(id));
  });
});
