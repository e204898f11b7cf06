import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Finding } from '../state/finding-schema.js';
import type { Baseline, GateResult, Verification } from '../state/state-schema.js';
import { type TestsFile, testsFileSchema } from '../state/test-report-schema.js';
import type { ChangeSet } from './change-set.js';
import { checkFailToPass } from './check-fail-to-pass.js';
import { checkMutants } from './check-mutants.js';
import { checkPassToPass } from './check-pass-to-pass.js';
import { isTestFile } from './languages/index.js';
import type { VerifyContext } from './verify-context.js';

/** A tests.json, or undefined where there is none (a run from before per-test evidence) or it is unreadable. */
export async function readTestsFile(file: string | undefined): Promise<TestsFile | undefined> {
  if (!file) return undefined;
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = testsFileSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

/** Pattern rules that per-test evidence decides better (pass-to-pass knows moves, renames and merges). */
const SUPERSEDED = ['test-case-removed', 'test-file-removed'];

export interface TestCheckInput {
  work: ChangeSet;
  workStart: string;
  head: string;
  runDir: string;
  baseline?: Baseline;
  /** The tests.json pass-to-pass compares with (the baseline's, or the last accepted claim's). */
  reference?: string;
  now: TestsFile['gates'];
  /** The gates' results on the claim. */
  results: readonly GateResult[];
  /** Findings so far: fail-to-pass (an extra run of the test gates) is spent only on a claim without any. */
  findingsSoFar: number;
  claimed: boolean;
}

/**
 * The evidence from what the tests did, after the gates: pass-to-pass against the reference, then — for a
 * claim nothing has rejected yet — fail-to-pass, then mutants of the claimed lines. The claim's tests.json
 * is written for the next claim.
 */
export async function checkTests(
  ctx: VerifyContext,
  input: TestCheckInput,
): Promise<{ findings: Finding[]; record: NonNullable<Verification['tests']>; superseded: ReadonlySet<string> }> {
  const now: TestsFile = { commit: input.head, gates: input.now };
  await writeFile(join(input.runDir, 'tests.json'), `${JSON.stringify(now)}\n`, 'utf8');
  const reference = await readTestsFile(input.reference);
  // Where every test gate names every test, before and now, the tests' own results say what is gone:
  // the patterns that guess it from the diff (and reject honest renames and merges) stand down.
  const testGates = ctx.gates.filter((g) => g.kind === 'test').map((g) => g.command);
  const named = (gates: TestsFile['gates'] | undefined) =>
    testGates.length > 0 && testGates.every((c) => gates?.find((g) => g.command === c)?.report.evidence === 'per-test');
  const superseded = new Set(named(input.now) && named(reference?.gates) ? SUPERSEDED : []);
  const findings = checkPassToPass(reference, input.now, input.work);
  const record: NonNullable<Verification['tests']> = { reference: reference?.commit };
  if (input.claimed && findings.length === 0 && input.findingsSoFar === 0) {
    const f2p = await checkFailToPass(ctx, {
      work: input.work,
      workStart: input.workStart,
      installedAt: input.baseline?.commit,
      runDir: input.runDir,
      reference,
      now: input.now,
      requireTests: ctx.requireTests,
      baselineRed: new Set((input.baseline?.gates ?? []).filter((g) => g.status !== 'pass').map((g) => g.command)),
    });
    findings.push(...f2p.findings);
    record.failToPass = f2p.record;
  }
  if (input.claimed && findings.length === 0 && input.findingsSoFar === 0) {
    const mutants = await checkMutants(ctx, {
      work: input.work,
      head: input.head,
      installedAt: input.baseline?.commit,
      runDir: input.runDir,
      results: input.results,
      tests: input.now,
      decisive: ctx.requireTests || input.work.files.some((f) => isTestFile(f.path)),
    });
    findings.push(...mutants.findings);
    record.mutants = mutants.record;
  }
  return { findings, record, superseded };
}
