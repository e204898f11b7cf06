import { describe, expect, it } from 'vitest';
import { type RunFolder, runsToPrune } from '../../src/state/prune-runs.js';

const MB = 1024 * 1024;
const of = (names: string[], bytes = 1): RunFolder[] => names.map((name) => ({ name, bytes }));

describe('runsToPrune', () => {
  it('all but the newest, never the report’s evidence, never anything that is not an iteration folder', () => {
    const folders = of(['0001', '0002', '0003', '0004', '0005', '0010', 'notes', '.tmp']);
    expect(runsToPrune(folders, 2, Infinity, new Set([2]))).toEqual(['0004', '0003', '0001']);
    expect(runsToPrune(folders, 10, Infinity, new Set())).toEqual([]);
    expect(runsToPrune(folders, 0, Infinity, new Set([1, 2, 3, 4, 5, 10]))).toEqual([]);
  });

  it('past the size bound the oldest go first; evidence stays and its bytes count; a folder alone too big goes', () => {
    const folders: RunFolder[] = [
      { name: '0001', bytes: 10 * MB },
      { name: '0002', bytes: 30 * MB },
      { name: '0003', bytes: 30 * MB },
      { name: '0004', bytes: 30 * MB },
    ];
    expect(runsToPrune(folders, 200, 100 * MB, new Set())).toEqual([]);
    expect(runsToPrune(folders, 200, 64 * MB, new Set())).toEqual(['0002', '0001']);
    // The evidence (0002) is kept and fills the bound: 0003 no longer fits, 0001 (10 MB) still does.
    expect(runsToPrune(folders, 200, 70 * MB, new Set([2]))).toEqual(['0003']);
    expect(runsToPrune([{ name: '0009', bytes: 80 * MB }], 200, 64 * MB, new Set())).toEqual(['0009']);
  });
});
