import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { codeCacheDir, codeCacheName } from '../util/code-cache-file.js';

/** Cache files kept (the newest): a global install and a project's own copy each keep theirs. */
const KEEP = 4;

/**
 * Runs the CLI bundle (`dist/cli.cjs`, one CommonJS file) through V8's code cache: Node 20 keeps no compiled
 * code between runs for ES modules (22's `module.enableCompileCache` does), and compiling the CLI is a third of
 * a `--dry-run`. The first run of a build compiles as usual and, as it exits, writes what V8 compiled by then
 * (the functions that run used, not only the top level) to the cache folder; later runs start from it. A cache
 * that cannot be read or written costs nothing but the time: star-loop runs the same either way.
 */
export function loadBundle(file: string): void {
  // The build keeps the bundle ASCII: as one-byte text it reads in well under a millisecond, where decoding
  // UTF-8 took 3-10 ms (and made a two-byte string twice the size for V8).
  const bytes = readFileSync(file);
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const stat = statSync(file, { bigint: true });
  const dir = codeCacheDir(process.env, process.platform, homedir());
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
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  // The module wrapper on a line of its own: the bundle's own lines keep their numbers in stack traces.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
    filename: file,
    lineOffset: -1,
    cachedData,
  });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  if (cacheFile && !used) process.once('exit', () => writeCache(script, cacheFile));
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

/**
 * The cache file's V8 data, if it is whole: V8 checks a cache's version, flags and source length but not its
 * bytes (a release build skips the checksum), and a damaged one crashes the process. The file starts with
 * the SHA-256 of the rest (~1 ms).
 */
function readCache(cacheFile: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const data = file.subarray(DIGEST_BYTES);
  return file.length > DIGEST_BYTES && digest(data).equals(file.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

const DIGEST_BYTES = 32;
const digest = (data: Buffer) => createHash('sha256').update(data).digest();

/** Writes the cache as the process exits: a temporary file renamed over, so a concurrent start reads all or none. */
function writeCache(script: Script, cacheFile: string): void {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    const data = script.createCachedData();
    writeFileSync(temporary, Buffer.concat([digest(data), data]), { mode: 0o600 });
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
