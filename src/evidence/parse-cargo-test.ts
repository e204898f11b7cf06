import type { TestCase, TestOutcome } from '../state/test-report-schema.js';

/** `     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)`, `   Doc-tests calc` — anywhere in a line. */
const TARGET = /(?:^|\s)(?:Running\s+(?:unittests\s+)?(\S+)\s+\(|Doc-tests\s+(\S+))/;
/** `test a::b ... ok`; what follows the verdict may be another stream's text written into the same line. */
const RESULT = /^test (.+?) \.\.\. (ok|FAILED|ignored)\b/;
/** `test a::b ... ` with the verdict pushed to a later line by output written in between. */
const STARTED = /^test (.+?) \.\.\. ?(?!ok\b|FAILED\b|ignored\b)/;
const VERDICT = /^(ok|FAILED|ignored)\b/;

const outcomeOf = (verdict: string): TestOutcome =>
  verdict === 'ok' ? 'pass' : verdict === 'FAILED' ? 'fail' : 'skip';

/**
 * `cargo test` output: every test by its target (src/lib.rs, tests/api.rs, doc-tests) and path. Cargo's
 * stderr (the target headers) and the test binary's stdout reach star-loop through one log, so a header
 * can land inside a result line, and a verdict on a line of its own: both are read. Pure.
 */
export function parseCargoTest(output: string): TestCase[] {
  const cases: TestCase[] = [];
  let target = '';
  /** A test whose verdict is still to come, with the target it started under. */
  let started: { name: string; file: string } | undefined;
  for (const raw of output.split('\n')) {
    const line = raw.trimEnd();
    const result = RESULT.exec(line);
    if (result) {
      cases.push({ file: target, name: result[1] ?? '', outcome: outcomeOf(result[2] ?? '') });
      started = undefined;
    } else if (started !== undefined && VERDICT.test(line.trim())) {
      cases.push({ ...started, outcome: outcomeOf(VERDICT.exec(line.trim())?.[1] ?? '') });
      started = undefined;
    } else {
      const begun = STARTED.exec(line);
      if (begun) started = { name: begun[1] ?? '', file: target };
    }
    const header = TARGET.exec(line);
    if (header) target = header[1] ?? `doc-tests ${header[2] ?? ''}`;
  }
  return cases;
}
