import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { CACHE_KIND, codeCacheDir, codeCacheName, FIRST_AGENT_HOOK } from '../util/code-cache-file.js';

/** Cache files kept (the newest): a global install and a project's own copy each keep theirs. */
const KEEP = 4;

/**
 * Runs the CLI bundle (`dist/cli.cjs`, one CommonJS file) through V8's code cache: Node 20 keeps no compiled
 * code between runs for ES modules (22's `module.enableCompileCache` does), and compiling the CLI is a third of
 * a `--dry-run`. The first start of a build compiles as usual and, as it exits, writes what V8 compiled by
 * then (the functions that command used, not only the top level) to the cache folder; later starts begin from
 * it. A cache written by a shorter command (`--help`, `--dry-run`) lacks the run's path, so a run that reaches
 * its first agent writes the cache again then (src/util/first-agent-started.ts), once a build. A cache that
 * cannot be read or written costs nothing but the time: star-loop runs the same either way.
 */
export function loadBundle(file: string): void {
  // The build keeps the bundle ASCII: read as one-byte text it takes about 2 ms, where decoding UTF-8 took 5-6
  // (and made a two-byte string twice the size for V8).
  const bytes = readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const stat = statSync(file, { bigint: true });
  const dir = codeCacheDir(process.env, process.platform, homedir(), process.cwd());
  const cacheFile = dir
    ? join(
        dir,
        codeCacheName({
          path: file,
          dev: stat.dev,
          ino: stat.ino,
          size: stat.size,
          mtimeNs: stat.mtimeNs,
          ctimeNs: stat.ctimeNs,
          nodeVersion: process.version,
          arch: process.arch,
        }),
      )
    : undefined;
  const cache = cacheFile ? readCache(cacheFile) : undefined;
  // The module wrapper on a line of its own: the bundle's own lines keep their numbers in stack traces.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
    filename: file,
    lineOffset: -1,
    cachedData: cache?.data,
  });
  if (cacheFile) {
    const used = cache !== undefined && !script.cachedDataRejected;
    let written = false;
    const write = (kind: number) => {
      if (written) return;
      written = true;
      writeCache(script, cacheFile, kind);
    };
    if (!used) process.once('exit', () => write(CACHE_KIND.exit));
    if (!used || cache.kind !== CACHE_KIND.firstAgent)
      (globalThis as Record<symbol, unknown>)[Symbol.for(FIRST_AGENT_HOOK)] = () => write(CACHE_KIND.firstAgent);
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

/**
 * The cache file's V8 data and kind, if it is whole: V8 checks a cache's version, flags and source length but
 * not its bytes (a release build skips the checksum), and a damaged one crashes the process. The file is the
 * SHA-256 of the rest (~1 ms), the kind (a byte, CACHE_KIND), then V8's data.
 */
function readCache(cacheFile: string): { data: Buffer; kind: number } | undefined {
  let file: Buffer;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const rest = file.subarray(DIGEST_BYTES);
  if (rest.length < 2 || !digest(rest).equals(file.subarray(0, DIGEST_BYTES))) return undefined;
  return { kind: rest[0] as number, data: rest.subarray(1) };
}

const DIGEST_BYTES = 32;
const digest = (data: Buffer) => createHash('sha256').update(data).digest();

/** Writes the cache: a temporary file renamed over, so a concurrent start reads all or none. */
function writeCache(script: Script, cacheFile: string, kind: number): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    const rest = Buffer.concat([Buffer.of(kind), script.createCachedData()]);
    writeFileSync(temporary, Buffer.concat([digest(rest), rest]), { mode: 0o600 });
    renameSync(temporary, cacheFile);
    prune(dirname(cacheFile), cacheFile);
  } catch {
    // A read-only or full home: the next run compiles again, nothing else changes.
    try {
      rmSync(temporary, { force: true });
    } catch {}
  }
}

/** Keeps the newest few cache files: each build of each Node writes its own. */
function prune(dir: string, kept: string): void {
  const files = readdirSync(dir)
    .filter((name) => /^cli-[0-9a-f]+\.v8$/.test(name) && join(dir, name) !== kept)
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of files.slice(KEEP - 1)) rmSync(old.path, { force: true });
}
