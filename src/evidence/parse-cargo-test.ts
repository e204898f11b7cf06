import type { TestCase, TestOutcome } from '../state/test-report-schema.js';

/** `     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)`, `   Doc-tests calc`. */
const TARGET = /^\s*(?:Running\s+(?:unittests\s+)?(\S+)|Doc-tests\s+(\S+))/;
const RESULT = /^test (.+?) \.\.\. (ok|FAILED|ignored(?:, .*)?)$/;

/** `cargo test` output: every test by its target (src/lib.rs, tests/api.rs, doc-tests) and path. Pure. */
export function parseCargoTest(output: string): TestCase[] {
  const cases: TestCase[] = [];
  let target = '';
  for (const line of output.split('\n')) {
    const t = TARGET.exec(line);
    if (t) {
      target = t[1] ?? `doc-tests ${t[2] ?? ''}`;
      continue;
    }
    const r = RESULT.exec(line.trimEnd());
    if (!r) continue;
    const verdict = r[2] ?? '';
    const outcome: TestOutcome = verdict === 'ok' ? 'pass' : verdict === 'FAILED' ? 'fail' : 'skip';
    cases.push({ file: target, name: r[1] ?? '', outcome });
  }
  return cases;
}
