import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { globToRegExp } from './glob.js';

/** Folders never walked: git's own, star-loop's, and installed dependencies (not the project's files). */
const SKIPPED = new Set(['.git', '.star', 'node_modules']);

/**
 * Every file on disk under `root` that a protected glob matches, with a hash of its content (a symlink:
 * of its target): tracked, untracked, git-ignored or hidden from git by an index flag alike — git is not
 * asked. Compared before and after an agent runs, so no git trick hides an edit of a protected path.
 */
export async function protectedFiles(root: string, globs: readonly string[]): Promise<Map<string, string>> {
  const patterns = globs.map(globToRegExp);
  const out = new Map<string, string>();
  if (patterns.length === 0) return out;
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) await walk(full, path);
        continue;
      }
      if (!patterns.some((p) => p.test(path))) continue;
      const content = entry.isSymbolicLink()
        ? `link:${await readlink(full).catch(() => '')}`
        : await readFile(full).catch(() => '');
      out.set(path, createHash('sha256').update(content).digest('hex'));
    }
  };
  await walk(root, '');
  return out;
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
