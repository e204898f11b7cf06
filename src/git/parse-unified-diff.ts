/** One added or removed line of a diff. */
export interface DiffLine {
  /** Line number in the file after (added) or before (removed) the change. */
  line: number;
  text: string;
}

export interface FileHunks {
  path: string;
  oldPath?: string;
  added: DiffLine[];
  removed: DiffLine[];
}

function unquote(path: string): string {
  return path.startsWith('"') ? (JSON.parse(path) as string) : path;
}

/** Parses `git diff -U0` output into added and removed lines per file, with their line numbers. */
export function parseUnifiedDiff(diff: string): FileHunks[] {
  const files: FileHunks[] = [];
  let current: FileHunks | undefined;
  let oldLine = 0;
  let newLine = 0;
  for (const raw of diff.split('\n')) {
    if (raw.startsWith('diff --git ')) {
      current = { path: '', added: [], removed: [] };
      files.push(current);
      continue;
    }
    if (!current) continue;
    if (raw.startsWith('--- ')) {
      const path = raw.slice(4);
      if (path !== '/dev/null') current.oldPath = unquote(path).replace(/^a\//, '');
    } else if (raw.startsWith('+++ ')) {
      const path = raw.slice(4);
      current.path = path === '/dev/null' ? (current.oldPath ?? '') : unquote(path).replace(/^b\//, '');
    } else if (raw.startsWith('rename from ')) {
      current.oldPath = raw.slice('rename from '.length);
    } else if (raw.startsWith('rename to ')) {
      current.path = raw.slice('rename to '.length);
    } else if (raw.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
      oldLine = Number(m?.[1] ?? 0);
      newLine = Number(m?.[2] ?? 0);
    } else if (raw.startsWith('+')) {
      current.added.push({ line: newLine++, text: raw.slice(1) });
    } else if (raw.startsWith('-')) {
      current.removed.push({ line: oldLine++, text: raw.slice(1) });
    }
  }
  for (const f of files) if (f.oldPath === f.path) f.oldPath = undefined;
  return files;
}
