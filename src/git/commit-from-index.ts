import type { BigIntStats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { type CacheTree, parseCacheTree, serializeCacheTree } from './cache-tree.js';
import { Entries, type EntryPart, entryFor, type IndexEntry, type ParsedIndex, parseIndex } from './index-file.js';

/**
 * star-loop's commit of the agent's work without an index process: the index star-loop wrote last (which
 * matches HEAD, with no flags) takes the files `git status` listed, their blobs written by a long-running
 * `hash-object`, and the folders on their paths get new trees from a long-running `mktree`. What it cannot do
 * exactly as `git add` + `write-tree` would (a symbolic link, a nested repository, a file that becomes a
 * folder, a path that is not UTF-8…) it says, and the caller runs git's own commands instead.
 */

/** The long-running git helpers this needs; null: the helper failed (the caller runs git's own commands). */
export interface TreeIo {
  /** Blob ids of these files (paths relative to the work tree), written with the repository's filters. */
  hashFiles(paths: readonly string[]): Promise<string[] | null>;
  /** The id of a tree of these `mode type id<TAB>name` entries, written. */
  makeTree(entries: readonly string[]): Promise<string | null>;
  /** The id of the tree at `path` in HEAD's tree. */
  headSubtree(path: string): Promise<string | null>;
}

export interface IndexCommit {
  tree: string;
  /** The new index: the old one read, its entries now, its cache-tree; the entries whose stat data star-loop wrote. */
  index: ParsedIndex;
  entries: Entries;
  cacheTree?: Buffer;
  written: IndexEntry[];
}

/** A path from `git status` as bytes (latin1), or undefined when it cannot stand for its bytes exactly. */
function pathBytes(path: string): string | undefined {
  if (path.includes('\uFFFD') || path.includes('\n') || path.startsWith('"') || path.endsWith('/')) return undefined;
  return Buffer.from(path, 'utf8').toString('latin1');
}

/** The UTF-8 text of a byte path, or undefined when its bytes are not UTF-8. */
function utf8Of(bytes: string): string | undefined {
  const buffer = Buffer.from(bytes, 'latin1');
  const text = buffer.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buffer) ? text : undefined;
}

/** The first index in sorted `entries` whose path is not before `path`. */
function lowerBound(entries: Entries, path: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries.path(mid) < path) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where a folder's entries lie in sorted `entries` (the root: all of them). */
function folderRange(entries: Entries, dir: string): [number, number] {
  if (dir === '') return [0, entries.length];
  // '0' follows '/' in byte order: every path under `dir/` sorts between the two.
  return [lowerBound(entries, `${dir}/`), lowerBound(entries, `${dir}0`)];
}

const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/** The index's entries with `updates` applied (an entry replaced or added by path, or removed), in git's order. */
function applyUpdates(index: ParsedIndex, updates: Map<string, IndexEntry | undefined>): Entries {
  const old = Entries.of(index);
  const keys = [...updates.keys()].sort();
  const parts: EntryPart[] = [];
  let i = 0;
  for (const key of keys) {
    const at = lowerBound(old, key);
    if (at > i) parts.push({ from: i, to: at });
    i = at < old.length && old.path(at) === key ? at + 1 : at;
    const entry = updates.get(key);
    if (entry) parts.push(entry);
  }
  if (old.length > i) parts.push({ from: i, to: old.length });
  return new Entries(index, parts);
}

/** True when a file and a folder would share a path around `path` (git add would replace one with the other). */
function folderClash(entries: Entries, path: string): boolean {
  const at = (p: string) => {
    const i = lowerBound(entries, p);
    return i < entries.length ? entries.path(i) : undefined;
  };
  for (let dir = parentOf(path); dir; dir = parentOf(dir)) if (at(dir) === dir) return true;
  return at(`${path}/`)?.startsWith(`${path}/`) ?? false;
}

/** A file of a folder (by its position in the entries), or a subfolder. */
type Child = { name: string; entry: number } | { name: string; folder: string };

/** A folder's direct children in the new index: its files, and each subfolder once. */
function childrenOf(entries: Entries, dir: string): Child[] {
  const [lo, hi] = folderRange(entries, dir);
  const prefix = dir ? dir.length + 1 : 0;
  const children: Child[] = [];
  for (let i = lo; i < hi; ) {
    const path = entries.path(i);
    const slash = path.indexOf('/', prefix);
    if (slash < 0) {
      children.push({ name: path.slice(prefix), entry: i });
      i++;
    } else {
      const folder = path.slice(0, slash);
      children.push({ name: folder.slice(prefix), folder });
      i = lowerBound(entries, `${folder}0`);
    }
  }
  return children;
}

/** The object type of an index entry's mode, as a tree lists it (a gitlink is a commit). */
function typeOfMode(mode: number): string | undefined {
  if (mode === 0o100644 || mode === 0o100755 || mode === 0o120000) return 'blob';
  return mode === 0o160000 ? 'commit' : undefined;
}

/**
 * The tree of the work tree and the index that records it, or why git's own commands must do it.
 * `index`: the index file star-loop wrote last; `paths`: what `git status` listed since.
 */
export async function commitFromIndex(
  root: string,
  indexData: Buffer,
  hashBytes: number,
  paths: readonly string[],
  io: TreeIo,
): Promise<IndexCommit | string> {
  const parsed = parseIndex(indexData, hashBytes);
  if (typeof parsed === 'string') return parsed;
  const keys: string[] = [];
  for (const path of paths) {
    const key = pathBytes(path);
    if (key === undefined) return `the path ${JSON.stringify(path)}`;
    keys.push(key);
  }
  const found = await Promise.all(
    keys.map((key) =>
      lstat(join(root, Buffer.from(key, 'latin1').toString('utf8')), { bigint: true }).catch(() => undefined),
    ),
  );
  const files: Array<{ key: string; st: BigIntStats }> = [];
  const updates = new Map<string, IndexEntry | undefined>();
  for (const [i, st] of found.entries()) {
    const key = keys[i] as string;
    if (!st) updates.set(key, undefined);
    else if (st.isFile()) files.push({ key, st });
    else return `${JSON.stringify(paths[i])} is not a regular file`;
  }
  const oids = files.length > 0 ? await io.hashFiles(files.map((f) => utf8Of(f.key) as string)) : [];
  if (!oids || oids.length !== files.length) return 'hash-object failed';
  const written: IndexEntry[] = [];
  files.forEach(({ key, st }, i) => {
    const mode = st.mode & 0o100n ? 0o100755 : 0o100644;
    const entry = entryFor(key, oids[i] as string, mode, st, hashBytes);
    written.push(entry);
    updates.set(key, entry);
  });
  const entries = applyUpdates(parsed, updates);
  if (entries.length === 0) return 'an empty tree';
  if (files.some((f) => folderClash(entries, f.key))) return 'a file that replaces a folder, or the other way';

  // Every folder on a changed path gets a new tree, the deepest first; the others keep HEAD's.
  const folders = new Set<string>(['']);
  for (const key of updates.keys()) for (let dir = parentOf(key); dir; dir = parentOf(dir)) folders.add(dir);
  const order = [...folders].sort((a, b) => depth(b) - depth(a));
  const listing = new Map(order.map((dir) => [dir, childrenOf(entries, dir)]));
  const unchanged = new Set<string>();
  for (const children of listing.values())
    for (const c of children) if ('folder' in c && !folders.has(c.folder)) unchanged.add(c.folder);
  const kept = new Map<string, string>();
  for (const folder of unchanged) if (utf8Of(folder) === undefined) return 'a folder name that is not UTF-8';
  const subtrees = await Promise.all([...unchanged].map((f) => io.headSubtree(utf8Of(f) as string)));
  for (const [i, folder] of [...unchanged].entries()) {
    const id = subtrees[i];
    if (!id) return `no tree for ${JSON.stringify(folder)} in HEAD`;
    kept.set(folder, id);
  }
  const made = new Map<string, string>();
  for (const dir of order) {
    const children = listing.get(dir) ?? [];
    if (children.length === 0) continue; // a folder whose files all went: it goes too
    const lines: string[] = [];
    for (const child of children) {
      const name = utf8Of(child.name);
      if (name === undefined) return 'a name that is not UTF-8';
      if ('entry' in child) {
        const mode = entries.mode(child.entry);
        const type = typeOfMode(mode);
        if (!type) return `an entry of mode ${mode.toString(8)}`;
        lines.push(`${mode.toString(8)} ${type} ${entries.oid(child.entry)}\t${name}`);
      } else {
        const id = made.get(child.folder) ?? kept.get(child.folder);
        if (id) lines.push(`040000 tree ${id}\t${name}`);
      }
    }
    const id = await io.makeTree(lines);
    if (!id) return 'mktree failed';
    made.set(dir, id);
  }
  const tree = made.get('');
  if (!tree) return 'no root tree';
  const cacheTree = updatedCacheTree(parsed, entries, order, made, hashBytes);
  return { tree, index: parsed, entries, cacheTree, written };
}

const depth = (dir: string) => (dir ? dir.split('/').length : 0);

/**
 * The cache-tree with every folder star-loop made a tree for set to it (a folder that went, dropped with what
 * lay under it); folders it did not touch keep what they had. Undefined (none written) when the old one
 * cannot be read.
 */
function updatedCacheTree(
  parsed: ParsedIndex,
  entries: Entries,
  order: readonly string[],
  made: ReadonlyMap<string, string>,
  hashBytes: number,
): Buffer | undefined {
  if (!parsed.tree) return undefined;
  const cache: CacheTree | undefined = parseCacheTree(parsed.tree, hashBytes);
  if (!cache) return undefined;
  for (const dir of order) {
    const id = made.get(dir);
    if (!id) {
      for (const key of [...cache.keys()]) if (key === dir || key.startsWith(`${dir}/`)) cache.delete(key);
      continue;
    }
    const [lo, hi] = folderRange(entries, dir);
    const children = childrenOf(entries, dir).flatMap((c) => ('folder' in c ? [c.name] : []));
    cache.set(dir, { count: hi - lo, oid: id, children });
  }
  return serializeCacheTree(cache, hashBytes);
}
