/** Pure parsers of git's machine-readable output (the formats git documents as stable). */

/** star-loop's own directory inside the repository; never counts as user work. */
export const STAR_DIR = '.star';

export interface WorkingChange {
  /** Two-letter porcelain status, e.g. ` M`, `??`, `D `. */
  code: string;
  path: string;
}

export interface ChangedFile {
  status: string;
  path: string;
  oldPath?: string;
}

/** `git status --porcelain=v1 -z`: every change, `.star/` left out. */
export function parseStatusZ(out: string): WorkingChange[] {
  const changes: WorkingChange[] = [];
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i];
    if (!entry || entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    // Renames and copies carry the original path in the next field.
    if (code.startsWith('R') || code.startsWith('C')) i++;
    if (path === STAR_DIR || path.startsWith(`${STAR_DIR}/`)) continue;
    changes.push({ code, path });
  }
  return changes;
}

/** `git diff --name-status -z -M`: added, modified, deleted, renamed (with both paths). */
export function parseNameStatusZ(out: string): ChangedFile[] {
  const fields = out.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const status = fields[i];
    if (!status) continue;
    if (status.startsWith('R') || status.startsWith('C')) {
      files.push({ status: status[0] ?? 'R', oldPath: fields[i + 1], path: fields[i + 2] ?? '' });
      i += 2;
    } else {
      files.push({ status: status[0] ?? 'M', path: fields[i + 1] ?? '' });
      i += 1;
    }
  }
  return files;
}

/**
 * `git merge-tree --write-tree --name-only` (exit 1 means conflicts): the tree, the conflicting files, git's messages.
 */
export function parseMergeTree(
  out: string,
  conflicted: boolean,
): { tree: string; conflicts: string[]; messages: string } {
  const [head = '', ...rest] = out.split('\n');
  const blank = rest.indexOf('');
  const conflicts = conflicted ? rest.slice(0, blank < 0 ? rest.length : blank).filter(Boolean) : [];
  const messages =
    blank < 0
      ? ''
      : rest
          .slice(blank + 1)
          .join('\n')
          .trim();
  return { tree: head.trim(), conflicts: [...new Set(conflicts)], messages };
}

/** `git for-each-ref --format='%(refname) %(objectname)'`, or `git ls-remote` (`hash<TAB>ref`): ref → commit. */
export function parseRefLines(out: string, separator: ' ' | '\t'): Map<string, string> {
  const pairs = out
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(separator) as [string, string]);
  return new Map(separator === '\t' ? pairs.map(([hash, ref]) => [ref, hash]) : pairs);
}

/** `git remote -v`: each remote's fetch URL. */
export function parseRemotes(out: string): Array<{ name: string; url: string }> {
  const seen = new Map<string, string>();
  for (const line of out.split('\n')) {
    const m = /^(\S+)\s+(\S+)\s+\(fetch\)$/.exec(line);
    if (m?.[1] && m[2]) seen.set(m[1], m[2]);
  }
  return [...seen].map(([name, url]) => ({ name, url }));
}

/**
 * `git ls-files -v -t -z`: the paths whose index entry an agent could have flagged to hide a change —
 * skip-worktree (tag `S`) and assume-unchanged (a lowercase tag).
 */
export function parseFlaggedEntries(out: string): { skipWorktree: string[]; assumeUnchanged: string[] } {
  const entries = out.split('\0').filter((entry) => entry.length > 2);
  return {
    skipWorktree: entries.filter((e) => e[0] === 'S' || e[0] === 's').map((e) => e.slice(2)),
    assumeUnchanged: entries.filter((e) => /^[a-z]/.test(e)).map((e) => e.slice(2)),
  };
}
