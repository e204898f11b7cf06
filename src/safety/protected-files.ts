import { createHash } from 'node:crypto';
import { type BigIntStats, type Dirent, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { globToRegExp } from './glob.js';

/** Folders never walked: git's own, star-loop's, and installed dependencies (not the project's files). */
const SKIPPED = new Set(['.git', '.star', 'node_modules']);

/**
 * A folder changed this long before it was read may still change within the same tick of the kernel's
 * coarse clock without its change time moving: such a folder is read again next time, whatever its stamp
 * says (git's "racily clean" rule, for folders).
 */
const RACY_MS = 2000;

interface Folder {
  stamp: string;
  racy: boolean;
  /** Protected names in it (files and symlinks), and its subfolders, as repository-relative paths. */
  matched: string[];
  folders: string[];
}

const tryStat = (full: string): Stats | undefined => {
  try {
    return lstatSync(full);
  } catch {
    return undefined;
  }
};

/** A file's content hashed, a symlink's target; anything else (a FIFO: reading it would block) by its kind. */
const hashOf = (full: string, found: Stats): string => {
  let content: string | Buffer = `kind:${found.mode & 0o170000}`;
  try {
    if (found.isSymbolicLink()) content = `link:${readlinkSync(full)}`;
    else if (found.isFile()) content = readFileSync(full);
  } catch {
    content = ''; // gone, or unreadable
  }
  return createHash('sha256').update(content).digest('hex');
};

/**
 * Every file on disk under the tree that a protected glob matches, with a hash of its content (a symlink:
 * of its target): tracked, untracked, git-ignored or hidden from git by an index flag alike — git is not
 * asked. Compared before and after an agent runs, so no git trick hides an edit of a protected path.
 *
 * Kept between calls: a folder is read again only when its stamp (inode, change and modification times)
 * moved or it was racily new; adding, removing or renaming anything in a folder changes its change time,
 * which no one can set back. Every protected file found is hashed again on every call. On a tree of 100,000
 * files a call costs a stat of each folder (about 5 ms) instead of reading every folder (70–240 ms). Read
 * synchronously: thousands of small calls, where libuv's thread pool cost more than the work.
 */
export class ProtectedWalk {
  private readonly patterns: RegExp[];
  private folders = new Map<string, Folder>();

  constructor(
    private readonly root: string,
    globs: readonly string[],
  ) {
    this.patterns = globs.map(globToRegExp);
  }

  files(): Map<string, string> {
    const out = new Map<string, string>();
    if (this.patterns.length === 0) return out;
    const seen = new Map<string, Folder>();
    const now = Date.now();
    const visit = (rel: string) => {
      const folder = this.read(rel, now);
      if (!folder) return;
      seen.set(rel, folder);
      for (const path of folder.matched) {
        const full = join(this.root, path);
        const found = tryStat(full);
        if (found) out.set(path, hashOf(full, found));
      }
      for (const sub of folder.folders) visit(sub);
    };
    visit('');
    this.folders = seen;
    return out;
  }

  private read(rel: string, now: number): Folder | undefined {
    const full = rel ? join(this.root, rel) : this.root;
    let st: BigIntStats;
    try {
      st = lstatSync(full, { bigint: true });
    } catch {
      return undefined;
    }
    if (!st.isDirectory()) return undefined;
    const stamp = `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
    const known = this.folders.get(rel);
    if (known && known.stamp === stamp && !known.racy) return known;
    let entries: Dirent[];
    try {
      entries = readdirSync(full, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const folder: Folder = { stamp, racy: Number(st.ctimeNs / 1_000_000n) >= now - RACY_MS, matched: [], folders: [] };
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) folder.folders.push(path);
      } else if (this.patterns.some((p) => p.test(path))) folder.matched.push(path);
    }
    return folder;
  }
}

/** The protected files of a tree, walked afresh (see ProtectedWalk). */
export function protectedFiles(root: string, globs: readonly string[]): Map<string, string> {
  return new ProtectedWalk(root, globs).files();
}

/** The protected files added, changed or removed between two walks. Pure. */
export function protectedChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changed = new Set<string>();
  for (const [path, hash] of after) if (before.get(path) !== hash) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}

/** The folders a protected glob covers whole (`.github/workflows/**` → `.github/workflows`). Pure. */
export function protectedFolders(globs: readonly string[]): string[] {
  return globs.map((g) => /^\/?([^*?[\]]+)\/\*\*$/.exec(g)?.[1]).filter((d): d is string => Boolean(d));
}
