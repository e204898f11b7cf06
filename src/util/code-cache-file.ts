import { createHash } from 'node:crypto';
import { isAbsolute, join } from 'node:path';

/** What names one compiled form of the bundle: the file as it is on disk, and the Node that compiled it. */
export interface BundleIdentity {
  path: string;
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  nodeVersion: string;
  arch: string;
}

/**
 * The folder for star-loop's compiled-code cache (pure): `STAR_LOOP_CODE_CACHE` (a folder, relative to `cwd`,
 * or `off`), else the platform's cache folder (a relative `XDG_CACHE_HOME` is ignored, as its spec says).
 * Always absolute: the sandbox keeps it read-only by its path. undefined: no cache.
 */
export function codeCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string,
  cwd: string,
): string | undefined {
  const chosen = env.STAR_LOOP_CODE_CACHE;
  if (chosen === 'off' || chosen === '0') return undefined;
  if (chosen) return isAbsolute(chosen) ? chosen : join(cwd, chosen);
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'star-loop');
  if (platform === 'win32') return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'star-loop', 'Cache') : undefined;
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'star-loop');
}

/**
 * The cache file's name (pure). V8 checks its own version and flags, and only the length of the source, so
 * the name carries what it does not: the bundle's inode and times (a rebuild of the same length is another
 * file) and Node's version and architecture.
 */
export function codeCacheName(id: BundleIdentity): string {
  const key = [id.path, id.dev, id.ino, id.size, id.mtimeNs, id.ctimeNs, id.nodeVersion, id.arch].join('\0');
  return `cli-${createHash('sha256').update(key).digest('hex').slice(0, 24)}.v8`;
}

/**
 * The global (a registered symbol) through which the CLI tells the loader it reached its first agent: the
 * loader (src/start/load-bundle.ts) and the bundle are two files, so they share a name, not a module.
 */
export const FIRST_AGENT_HOOK = 'star-loop.code-cache.first-agent';

/**
 * What a cache file holds (pure): the byte after its digest. `exit`: what one command had compiled when it
 * exited; `first-agent`: what a run had compiled by its first agent, the start-up path `run` takes.
 */
export const CACHE_KIND = { exit: 0, firstAgent: 1 } as const;
