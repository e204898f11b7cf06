import type { TestCase } from '../state/test-report-schema.js';
import { stripAnsi } from './parse-test-counts.js';

// ✔ ✓ √ (escaped: the bundle is ASCII).
const PASS = /^(\s*)[\u2714\u2713\u221a] (.+?)(?: \(\d+ms\))?$/;
const FAIL = /^(\s*)\d+\) (.+)$/;
const PENDING = /^(\s*)- (.+)$/;

/**
 * Mocha's default `spec` reporter: every test under its suites, by indentation (two spaces a level), up to
 * the `N passing` summary. Mocha does not print the file, so identity is the suites and the name. Pure.
 */
export function parseMocha(output: string): TestCase[] {
  const lines = stripAnsi(output).split('\n');
  const end = lines.findIndex((l) => /^\s*\d+ passing \(/.test(l));
  if (end === -1) return [];
  const cases: TestCase[] = [];
  const suites: string[] = [];
  for (const line of lines.slice(0, end)) {
    if (!line.trim()) continue;
    const pass = PASS.exec(line);
    const fail = pass ? null : FAIL.exec(line);
    const marked = pass ?? fail ?? PENDING.exec(line);
    const level = Math.floor((marked?.[1] ?? /^\s*/.exec(line)?.[0] ?? '').length / 2) - 1;
    if (!marked) {
      suites.length = Math.max(0, level);
      suites[Math.max(0, level)] = line.trim();
      continue;
    }
    const outcome = pass ? 'pass' : fail ? 'fail' : 'skip';
    const name = [...suites.slice(0, Math.max(0, level)), marked[2] ?? ''].join(' > ');
    cases.push({ file: '', name, outcome });
  }
  return cases;
}
