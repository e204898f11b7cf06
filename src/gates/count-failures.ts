import { stripAnsi } from '../evidence/parse-test-counts.js';

/** How one test runner reports its failures; `sum` adds up several summaries (one per crate, package…). */
const RECOGNISERS: Array<{ runner: string; pattern: RegExp; sum?: boolean }> = [
  { runner: 'cargo test', pattern: /test result: FAILED\. \d+ passed; (\d+) failed/g, sum: true },
  { runner: 'go test', pattern: /^\s*--- FAIL: /gm, sum: true },
  // ℹ (escaped: the bundle is ASCII)
  { runner: 'node --test', pattern: /^(?:#|\u2139) fail (\d+)\s*$/gm },
  { runner: 'vitest', pattern: /^\s*Tests\s+(\d+) failed/gm },
  { runner: 'jest', pattern: /^Tests:\s+(\d+) failed/gm },
  { runner: 'pytest', pattern: /^=+ .*?(\d+) failed.* =+$/gm },
  { runner: 'mocha', pattern: /^\s*(\d+) failing\s*$/gm },
];

/**
 * The number of failing tests in a gate's output, where its runner's summary can be read; undefined when
 * it cannot (then "worse" can only mean "no longer runs").
 */
export function countFailures(text: string): number | undefined {
  const output = stripAnsi(text);
  for (const { pattern, sum } of RECOGNISERS) {
    const matches = [...output.matchAll(new RegExp(pattern.source, pattern.flags))];
    if (matches.length === 0) continue;
    const counts = matches.map((m) => (m[1] === undefined ? 1 : Number(m[1])));
    return sum ? counts.reduce((a, b) => a + b, 0) : counts.at(-1);
  }
  return undefined;
}
