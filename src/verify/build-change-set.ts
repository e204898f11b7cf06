import type { Git } from '../git/git.js';
import { parseUnifiedDiff } from '../git/parse-unified-diff.js';
import type { ChangeSet, FileChange } from './change-set.js';
import { isSnapshotFile, languageOf } from './languages/index.js';
import { pinSources } from './pins/index.js';

const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Reads the change from `base` to `head` once, for all detectors: statuses, added and removed lines, and
 * the before/after text of each changed file (skipping files over 1 MB). `exclude` drops star-loop's own
 * bookkeeping (e.g. prd.json, whose `passes` star-loop itself writes).
 */
export async function buildChangeSet(
  git: Git,
  base: string,
  head: string,
  intent: string,
  exclude: ReadonlySet<string>,
  /** More files whose text some check reads (the files the gates run). */
  alsoRead: ReadonlySet<string> = new Set(),
): Promise<ChangeSet> {
  const [statuses, diff] = await Promise.all([git.changedFiles(base, head), git.unifiedDiff(base, head)]);
  const hunks = new Map(parseUnifiedDiff(diff).map((h) => [h.path, h]));
  const files: FileChange[] = [];
  for (const entry of statuses) {
    if (exclude.has(entry.path)) continue;
    const h = hunks.get(entry.path);
    const oldPath = entry.oldPath ?? entry.path;
    // Only files some check reads need their text: source, tests, snapshots and gate configuration.
    const readable = [entry.path, oldPath].some(
      (p) => languageOf(p) || isSnapshotFile(p) || alsoRead.has(p) || pinSources.some((s) => s.matches(p)),
    );
    const [before, after] = readable
      ? await Promise.all([
          entry.status === 'A' ? undefined : git.showFile(base, oldPath),
          entry.status === 'D' ? undefined : git.showFile(head, entry.path),
        ])
      : [undefined, undefined];
    files.push({
      path: entry.path,
      oldPath: entry.oldPath,
      status: (entry.status as FileChange['status']) ?? 'M',
      added: h?.added ?? [],
      removed: h?.removed ?? [],
      before: before !== undefined && before.length <= MAX_FILE_BYTES ? before : undefined,
      after: after !== undefined && after.length <= MAX_FILE_BYTES ? after : undefined,
    });
  }
  return { base, head, files, intent };
}
