import { describe, expect, it } from 'vitest';
import { runsToPrune } from '../../src/state/prune-runs.js';

describe('runsToPrune', () => {
  it('all but the newest, never the report’s evidence, never anything that is not an iteration folder', () => {
    const folders = ['0001', '0002', '0003', '0004', '0005', '0010', 'notes', '.tmp'];
    expect(runsToPrune(folders, 2, new Set([2]))).toEqual(['0004', '0003', '0001']);
    expect(runsToPrune(folders, 10, new Set())).toEqual([]);
    expect(runsToPrune(folders, 0, new Set([1, 2, 3, 4, 5, 10]))).toEqual([]);
  });
});
