import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/proc/line-splitter.js';
import { TailBuffer } from '../../src/proc/tail-buffer.js';
import { formatDuration, parseDuration } from '../../src/util/parse-duration.js';

describe('LineSplitter', () => {
  const split = (chunks: string[], max?: number) => {
    const lines: string[] = [];
    const splitter = new LineSplitter((l) => lines.push(l), max);
    for (const c of chunks) splitter.push(Buffer.from(c));
    splitter.end();
    return { lines, skipped: splitter.skippedLines };
  };

  it.each([
    [['a\nb\n'], ['a', 'b']],
    [
      ['a', 'b\nc', '\n'],
      ['ab', 'c'],
    ],
    [['x\r\ny'], ['x', 'y']],
    [['\n\n'], ['', '']],
    [['é'.slice(0, 1), '\n'], ['é']],
  ])('%j → %j', (chunks, expected) => {
    expect(split(chunks).lines).toEqual(expected);
  });

  it('splits a multi-byte character cut between chunks correctly', () => {
    const bytes = Buffer.from('héllo\n');
    const lines: string[] = [];
    const splitter = new LineSplitter((l) => lines.push(l));
    splitter.push(bytes.subarray(0, 2));
    splitter.push(bytes.subarray(2));
    expect(lines).toEqual(['héllo']);
  });

  it('skips a line longer than the limit, in one chunk or across many, and counts it', () => {
    expect(split(['short\n', 'y'.repeat(50), '\nnext\n'], 10)).toEqual({ lines: ['short', 'next'], skipped: 1 });
    expect(split(['yyyyyy', 'yyyyyy', 'yyyyyy\nok\n'], 10)).toEqual({ lines: ['ok'], skipped: 1 });
  });
});

describe('TailBuffer', () => {
  it('keeps the last bytes, starting at a line boundary once cut', () => {
    const tail = new TailBuffer(12);
    for (const c of ['line one\n', 'line two\n', 'line three\n']) tail.push(Buffer.from(c));
    expect(tail.text()).toBe('line three\n');
    const tiny = new TailBuffer(4);
    tiny.push(Buffer.from('abcdefgh'));
    expect(tiny.text()).toBe('efgh');
    const small = new TailBuffer(100);
    small.push(Buffer.from('all of it'));
    expect(small.text()).toBe('all of it');
  });
});

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['45m', 2_700_000],
    ['8h', 28_800_000],
    ['1h30m', 5_400_000],
    ['1500ms', 1500],
    ['1.5s', 1500],
    ['90', undefined],
    ['soon', undefined],
    ['0s', undefined],
    ['-5m', undefined],
  ])('%s → %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('formats durations for people', () => {
    expect([formatDuration(420), formatDuration(2500), formatDuration(125_000), formatDuration(3_900_000)]).toEqual([
      '420ms',
      '2.5s',
      '2m5s',
      '1h5m',
    ]);
  });
});
