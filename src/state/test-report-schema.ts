import * as z from 'zod';

/** What became of one test: `todo` covers xfail and todo markers, `cancelled` a test its runner never finished. */
export const testOutcomeSchema = z.enum(['pass', 'fail', 'skip', 'todo', 'cancelled']);
export type TestOutcome = z.infer<typeof testOutcomeSchema>;

/** One test, by identity: the file (or module, package, suite class) and its full name with its suites. */
export const testCaseSchema = z.object({
  file: z.string(),
  name: z.string(),
  outcome: testOutcomeSchema,
});
export type TestCase = z.infer<typeof testCaseSchema>;

export const testTotalsSchema = z.object({
  pass: z.number(),
  fail: z.number(),
  skip: z.number(),
  todo: z.number(),
  cancelled: z.number(),
});
export type TestTotals = z.infer<typeof testTotalsSchema>;

/**
 * What one gate run says about its tests: every test by identity (`per-test`), only its runner's totals
 * (`counts`), or nothing but its exit code (`exit-code`).
 */
export const testReportSchema = z.object({
  evidence: z.enum(['per-test', 'counts', 'exit-code']),
  /** The runner the evidence came from (`node --test`, `pytest`, `go test`, `cargo test`, `junit`, `vitest`…). */
  runner: z.string().optional(),
  totals: testTotalsSchema.optional(),
  tests: z.array(testCaseSchema).optional(),
});
export type TestReport = z.infer<typeof testReportSchema>;

/** `.star/runs/NNNN/tests.json` (and the baseline's): every gate's tests on one commit. */
export const testsFileSchema = z.object({
  commit: z.string(),
  gates: z.array(z.object({ name: z.string(), command: z.string(), report: testReportSchema })),
});
export type TestsFile = z.infer<typeof testsFileSchema>;

/** A test's identity across runs. */
export const testId = (t: Pick<TestCase, 'file' | 'name'>) => `${t.file}::${t.name}`;

export function totalsOf(tests: readonly TestCase[]): TestTotals {
  const totals: TestTotals = { pass: 0, fail: 0, skip: 0, todo: 0, cancelled: 0 };
  for (const t of tests) totals[t.outcome]++;
  return totals;
}

/** Tests that ran to a verdict (passed or failed): what a runner that silently runs fewer tests loses. */
export const executed = (t: TestTotals) => t.pass + t.fail;
