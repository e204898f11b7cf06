import type { Finding } from '../state/finding-schema.js';
import type { TestsFile } from '../state/test-report-schema.js';
import { isTestFile } from './languages/index.js';

/** Whether a test's identity is in `file` (a path, or pytest's module name for it). */
export function inTestFile(test: { file: string }, file: string): boolean {
  const module = file.replace(/\.py$/, '').replace(/\//g, '.');
  return test.file === file || test.file === module || test.file.startsWith(`${module}.`);
}

/**
 * A pattern's finding on a test file, with what that file's tests did on the claim beside it (from the
 * per-test results): the pattern is a hint, the results are the evidence. Unchanged where there are none.
 */
export function citeTestEvidence(finding: Finding, now: TestsFile['gates']): Finding {
  const file = finding.file;
  if (!file || !isTestFile(file)) return finding;
  const tests = now.flatMap((g) => (g.report.tests ?? []).filter((t) => inTestFile(t, file)));
  if (!now.some((g) => g.report.evidence === 'per-test')) return finding;
  const count = (o: string) => tests.filter((t) => t.outcome === o).length;
  const seen =
    tests.length === 0
      ? 'no test of this file ran'
      : `${count('pass')} passed, ${count('fail')} failed, ${count('skip') + count('todo')} skipped or todo`;
  return { ...finding, detail: `${finding.detail} (a pattern; the file's tests on the claim: ${seen})` };
}
