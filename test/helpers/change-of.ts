import type { ChangeSet, FileChange } from '../../src/verify/change-set.js';

/**
 * A FileChange from before/after text, for detector unit tests: lines only in `after` are added, lines only
 * in `before` removed (a multiset difference; enough for the small texts these tests use).
 */
export function fileChange(
  path: string,
  before: string | undefined,
  after: string | undefined,
  oldPath?: string,
): FileChange {
  const b = before?.split('\n') ?? [];
  const a = after?.split('\n') ?? [];
  const diff = (from: string[], to: string[]) => {
    const pool = new Map<string, number>();
    for (const l of to) pool.set(l, (pool.get(l) ?? 0) + 1);
    return from.flatMap((text, i) => {
      const left = pool.get(text) ?? 0;
      if (left > 0) {
        pool.set(text, left - 1);
        return [];
      }
      return [{ line: i + 1, text }];
    });
  };
  const status = before === undefined ? 'A' : after === undefined ? 'D' : oldPath ? 'R' : 'M';
  return { path, oldPath, status, added: diff(a, b), removed: diff(b, a), before, after };
}

export function changeSet(files: FileChange[], intent = 'Add multiply', kind?: string): ChangeSet {
  return { base: 'b'.repeat(40), head: 'h'.repeat(40), files, intent, kind };
}
