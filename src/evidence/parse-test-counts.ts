import type { TestTotals } from '../state/test-report-schema.js';

type Counts = Partial<TestTotals>;

/**
 * Terminal control sequences some runners print even into a pipe (or when a project forces colour): SGR
 * colours, other CSI sequences, OSC (links, titles), charset designations (`ESC ( B`, cargo's reset).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][A-Za-z0-9]|[@-Z\\-_])/g;
export const stripAnsi = (text: string) => text.replace(ANSI, '');
const num = (text: string | undefined) => (text === undefined ? 0 : Number(text));

/** One runner's summary line(s) → its totals; the last summary wins (a watch re-run, a retry). */
const SUMMARIES: Array<{ runner: string; read: (output: string) => Counts | undefined }> = [
  {
    runner: 'vitest',
    read: (o) => {
      const m = [...o.matchAll(/^\s*Tests\s+(.*\(\d+\))\s*$/gm)].at(-1)?.[1];
      if (!m) return undefined;
      const part = (word: string) => num(new RegExp(`(\\d+) ${word}`).exec(m)?.[1]);
      return { pass: part('passed'), fail: part('failed'), skip: part('skipped'), todo: part('todo') };
    },
  },
  {
    runner: 'jest',
    read: (o) => {
      const m = [...o.matchAll(/^Tests:\s+(.*\d+ total)\s*$/gm)].at(-1)?.[1];
      if (!m) return undefined;
      const part = (word: string) => num(new RegExp(`(\\d+) ${word}`).exec(m)?.[1]);
      return { pass: part('passed'), fail: part('failed'), skip: part('skipped'), todo: part('todo') };
    },
  },
  {
    runner: 'node --test',
    read: (o) => {
      const field = (name: string) => [...o.matchAll(new RegExp(`^(?:#|ℹ) ${name} (\\d+)\\s*$`, 'gm'))].at(-1)?.[1];
      if (field('pass') === undefined) return undefined;
      return {
        pass: num(field('pass')),
        fail: num(field('fail')),
        skip: num(field('skipped')),
        todo: num(field('todo')),
        cancelled: num(field('cancelled')),
      };
    },
  },
  {
    runner: 'mocha',
    read: (o) => {
      const passing = [...o.matchAll(/^\s*(\d+) passing\b/gm)].at(-1)?.[1];
      if (passing === undefined) return undefined;
      return {
        pass: num(passing),
        fail: num([...o.matchAll(/^\s*(\d+) failing\s*$/gm)].at(-1)?.[1]),
        skip: num([...o.matchAll(/^\s*(\d+) pending\s*$/gm)].at(-1)?.[1]),
      };
    },
  },
  {
    runner: 'pytest',
    read: (o) => {
      // `=== 1 failed, 4 passed in 0.80s ===`, or without the rules under -q.
      const m = [
        ...o.matchAll(
          /^(?:=+ )?(\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected)\b.*) in [\d.]+s.*$/gm,
        ),
      ].at(-1)?.[1];
      if (!m) return undefined;
      const part = (word: string) => num(new RegExp(`(\\d+) ${word}\\b`).exec(m)?.[1]);
      return {
        pass: part('passed') + part('xpassed'),
        fail: part('failed') + part('errors?'),
        skip: part('skipped'),
        todo: part('xfailed'),
      };
    },
  },
  {
    runner: 'cargo test',
    read: (o) => {
      const all = [...o.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/g)];
      if (all.length === 0) return undefined;
      const sum = (i: number) => all.reduce((n, m) => n + num(m[i]), 0);
      return { pass: sum(1), fail: sum(2), skip: sum(3) };
    },
  },
];

/** A runner's totals from its printed summary, where one can be read. Pure. */
export function parseTestCounts(output: string): { runner: string; totals: TestTotals } | undefined {
  const plain = stripAnsi(output);
  for (const { runner, read } of SUMMARIES) {
    const counts = read(plain);
    if (counts) {
      return { runner, totals: { pass: 0, fail: 0, skip: 0, todo: 0, cancelled: 0, ...counts } };
    }
  }
  return undefined;
}
