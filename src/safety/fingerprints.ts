import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseJson } from '../util/parse-json.js';

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const attempt = <T>(read: () => T): T | undefined => {
  try {
    return read();
  } catch {
    return undefined;
  }
};

/**
 * `path → sha256` of every file under `dir` (one level of hooks, info, …), or of single files; a symlink by
 * its target and what it points at (a hook symlinked to a file the agent controls is a changed hook).
 * Read synchronously: a few dozen small files, before and after every agent run, where a round trip
 * through libuv's thread pool per file cost more than the reading (15–20 ms an iteration, measured).
 */
function hashFiles(paths: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of paths) {
    const stamp = stampOf(path);
    const known = stamp ? hashed.get(path) : undefined;
    if (known && known.stamp === stamp) {
      out.set(path, known.hash);
      continue;
    }
    const link = attempt(() => readlinkSync(path));
    const content = attempt(() => readFileSync(path));
    const hash = link === undefined && content === undefined ? 'absent' : sha(`${link ?? ''}\0${sha(content ?? '')}`);
    out.set(path, hash);
    if (stamp) hashed.set(path, { stamp, hash });
    else hashed.delete(path);
  }
  return out;
}

/** Hashes already taken, by path, with the stamp of the file they were taken from. */
const hashed = new Map<string, { stamp: string; hash: string }>();

/** How long after its last change a file's stamp is trusted: longer than any filesystem's clock tick. */
const SETTLED_NS = 2_000_000_000n;

/**
 * A regular file's identity and every time anyone can change about it, or undefined (a link, a folder, a
 * file gone, or one changed in the last two seconds: a same-size rewrite within the clock's tick would keep
 * its times). No one can set a change time back, so an unchanged stamp means unchanged content: the ~20
 * pinned files that do not change are not read twice an iteration.
 */
function stampOf(path: string): string | undefined {
  const st = attempt(() => lstatSync(path, { bigint: true }));
  if (!st?.isFile()) return undefined;
  if (BigInt(Date.now()) * 1_000_000n - st.ctimeNs < SETTLED_NS) return undefined;
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

function listFiles(dir: string): string[] {
  return (attempt(() => readdirSync(dir, { withFileTypes: true })) ?? [])
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => join(dir, e.name));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** prd.json's content with `passes` and `notes` left out: everything the agent may not change. */
export function prdFields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch {
    return new Map([['(the whole file, unparseable)', sha(text)]]);
  }
  // Not an object (`null`, a list, a number): pinned whole, like a file that does not parse.
  if (!isRecord(parsed)) return new Map([['(the whole file, not an object)', sha(text)]]);
  const prd = parsed;
  for (const [key, value] of Object.entries(prd)) if (key !== 'userStories') out.set(key, JSON.stringify(value));
  const stories = Array.isArray(prd.userStories) ? (prd.userStories as Array<Record<string, unknown>>) : [];
  stories.forEach((story, i) => {
    if (!isRecord(story)) {
      out.set(`userStories[${i}]`, JSON.stringify(story));
      return;
    }
    for (const [key, value] of Object.entries(story)) {
      if (key !== 'passes' && key !== 'notes')
        out.set(`userStories[${String(story.id ?? i)}].${key}`, JSON.stringify(value));
    }
  });
  out.set('userStories.length', String(stories.length));
  return out;
}

export interface Fingerprints {
  files: Map<string, string>;
  prd?: Map<string, string>;
}

/** Files under .git/info that git writes by itself during maintenance. */
const GIT_MAINTAINED: ReadonlySet<string> = new Set(['refs', 'packs']);

/**
 * The pins star-loop holds the agent to: the prompt file, prd.json's fields other than passes/notes, git's
 * own files (config, hooks, info) and star-loop's state files. Taken before an agent runs, compared after.
 */
export async function takeFingerprints(input: {
  root: string;
  gitDir: string;
  starDir: string;
  promptFile?: string;
  prdFile?: string;
}): Promise<Fingerprints> {
  const files = [
    join(input.gitDir, 'config'),
    ...listFiles(join(input.gitDir, 'hooks')),
    // info/exclude, attributes, sparse-checkout, grafts… — not info/refs, which git's own gc rewrites
    // (repack → update-server-info) whenever an agent's commit triggers an automatic gc.
    ...listFiles(join(input.gitDir, 'info')).filter(
      (f) => !GIT_MAINTAINED.has(f.slice(join(input.gitDir, 'info').length + 1)),
    ),
    join(input.starDir, 'state.json'),
    join(input.starDir, 'journal.md'),
    join(input.starDir, '.gitignore'),
    ...listFiles(join(input.starDir, 'hooks')),
    ...(input.promptFile ? [input.promptFile] : []),
  ];
  const prdText = input.prdFile ? await readFile(input.prdFile, 'utf8').catch(() => undefined) : undefined;
  return { files: hashFiles(files), prd: prdText === undefined ? undefined : prdFields(prdText) };
}

/** Re-reads one pinned file after star-loop itself wrote it (its state, saved while an agent starts). */
export async function refreshFingerprint(fp: Fingerprints, path: string): Promise<void> {
  fp.files.set(path, hashFiles([path]).get(path) ?? 'absent');
}

/** What changed between two sets of fingerprints, as paths relative to the repository and prd.json fields. */
export function fingerprintChanges(root: string, before: Fingerprints, after: Fingerprints): string[] {
  const changes: string[] = [];
  for (const path of new Set([...before.files.keys(), ...after.files.keys()])) {
    if (before.files.get(path) !== after.files.get(path)) changes.push(relative(root, path) || path);
  }
  if (before.prd && after.prd) {
    for (const key of new Set([...before.prd.keys(), ...after.prd.keys()])) {
      if (before.prd.get(key) !== after.prd.get(key)) changes.push(`prd.json ${key}`);
    }
  }
  return changes;
}
