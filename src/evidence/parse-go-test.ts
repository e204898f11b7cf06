import type { TestCase, TestOutcome } from '../state/test-report-schema.js';

const RESULT = /^\s*--- (PASS|FAIL|SKIP): (\S+) \(/;
/** `ok  	example.com/pkg	0.01s`, `FAIL	example.com/pkg	0.01s`, `FAIL	example.com/pkg [build failed]`. */
const PACKAGE = /^(ok|FAIL)\s+(\S+)\s/;
const OUTCOME: Record<string, TestOutcome> = { PASS: 'pass', FAIL: 'fail', SKIP: 'skip' };

/**
 * `go test -v` output (star-loop sets GOFLAGS=-v for its gates): every test and subtest by package and name.
 * A package's tests are printed before its `ok`/`FAIL` line, which names it. Pure.
 */
export function parseGoTest(output: string): TestCase[] {
  const cases: TestCase[] = [];
  let pending: Array<{ name: string; outcome: TestOutcome }> = [];
  for (const line of output.split('\n')) {
    const result = RESULT.exec(line);
    if (result) {
      pending.push({ name: result[2] ?? '', outcome: OUTCOME[result[1] ?? ''] ?? 'fail' });
      continue;
    }
    const pkg = PACKAGE.exec(line);
    if (pkg) {
      for (const t of pending) cases.push({ file: pkg[2] ?? '', ...t });
      pending = [];
    }
  }
  for (const t of pending) cases.push({ file: '', ...t });
  return cases;
}
