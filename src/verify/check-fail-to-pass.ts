import { join } from 'node:path';
import { leafName } from '../evidence/pass-to-pass.js';
import { runGatesOn } from '../gates/run-gates.js';
import type { Finding } from '../state/finding-schema.js';
import type { FailToPass } from '../state/state-schema.js';
import { type TestCase, type TestsFile, testId } from '../state/test-report-schema.js';
import type { ChangeSet, FileChange } from './change-set.js';
import { inTestFile } from './cite-test-evidence.js';
import { isSnapshotFile, isTestFile, languageOf } from './languages/index.js';
import { testBodies } from './test-bodies.js';
import type { VerifyContext } from './verify-context.js';

/** Story kinds whose tests need not fail before the work: it keeps behaviour, or it is not code. */
const NO_FAIL_TO_PASS = new Set(['tests', 'refactor', 'docs', 'chore']);

export interface FailToPassInput {
  work: ChangeSet;
  workStart: string;
  /** The baseline's commit (its dependencies are the trusted ones). */
  installedAt?: string;
  runDir: string;
  /** The tests before the claim (pass-to-pass's reference), and on the claim. */
  reference?: TestsFile;
  now: TestsFile['gates'];
  requireTests: boolean;
  /** Gates red before iteration 1: their failing says nothing about the claim's tests. */
  baselineRed: ReadonlySet<string>;
}

const isTestish = (f: FileChange) => isTestFile(f.path) || isSnapshotFile(f.path);

/** The claim's own tests: in the test files it changed, passing now, and new or with a changed body. */
function claimTests(input: FailToPassInput, files: readonly FileChange[]): Map<string, TestCase[]> {
  const before = new Set(
    (input.reference?.gates ?? []).flatMap((g) =>
      (g.report.tests ?? []).filter((t) => t.outcome === 'pass').map(testId),
    ),
  );
  const out = new Map<string, TestCase[]>();
  for (const gate of input.now) {
    const tests = (gate.report.tests ?? []).filter((t) => {
      if (t.outcome !== 'pass') return false;
      const file = files.find((f) => inTestFile(t, f.path));
      if (!file) return false;
      if (!before.has(testId(t))) return true;
      const leaf = leafName(t.name);
      const body = (text?: string) =>
        JSON.stringify(testBodies(file.path, text ?? '').find((b) => b.name === leaf)?.lines ?? null);
      return body(file.before) !== body(file.after);
    });
    if (tests.length > 0) out.set(gate.command, tests);
  }
  return out;
}

/**
 * Fail-to-pass: the claim's tests, laid over its base commit without its source changes (a throw-away copy,
 * never the user's checkout), must fail there — at least one of them. Tests that pass without the change do
 * not test it. Runs only for a claim that changes both source and tests, on a story whose kind expects it.
 */
export async function checkFailToPass(
  ctx: VerifyContext,
  input: FailToPassInput,
): Promise<{ findings: Finding[]; record: FailToPass }> {
  const { work } = input;
  const tests = work.files.filter((f) => isTestish(f));
  const source = work.files.filter((f) => !isTestish(f) && languageOf(f.path));
  const skip = (reason: string, findings: Finding[] = []) => ({ findings, record: { ran: false, reason } });
  if (tests.length === 0) {
    const reason = 'no new test evidence: the claim adds or changes no test';
    if (source.length === 0 || !input.requireTests) return skip(reason);
    return skip(reason, [{ rule: 'no-new-tests', detail: `${reason} (requireTests is on)` }]);
  }
  if (source.length === 0) return skip('the claim changes tests only');
  if (work.kind && NO_FAIL_TO_PASS.has(work.kind)) return skip(`the story's kind is "${work.kind}"`);
  const gates = ctx.gates.filter((g) => g.kind === 'test');
  if (gates.length === 0) return skip('no test gate');

  const started = Date.now();
  const overlay = tests.map((f) => ({ path: f.path, content: f.status === 'D' ? null : (f.after ?? null) }));
  if (overlay.some((o, i) => o.content === null && tests[i]?.status !== 'D')) {
    return skip('a changed test file is too large or not text');
  }
  const run = await runGatesOn(gates, {
    ...ctx.gatePlace,
    commit: input.workStart,
    installedAt: input.installedAt,
    logFile: join(input.runDir, 'fail-to-pass.log'),
    overlay,
  });
  const durationMs = Date.now() - started;
  const mine = claimTests(input, tests);
  const flipped: string[] = [];
  const considered: string[] = [];
  let perTest = mine.size > 0;
  for (const [command, claimed] of mine) {
    const atBase = run.tests.find((g) => g.command === command)?.report;
    if (atBase?.evidence !== 'per-test') {
      perTest = false;
      break;
    }
    const outcome = new Map((atBase.tests ?? []).map((t) => [testId(t), t.outcome]));
    for (const t of claimed) {
      considered.push(t.name);
      if (outcome.get(testId(t)) !== 'pass') flipped.push(t.name);
    }
  }
  const record: FailToPass = {
    ran: true,
    durationMs,
    evidence: perTest ? 'per-test' : 'gates',
    tests: considered,
    flipped,
  };
  const where = "run on the claim's base commit with only its test files applied";
  if (perTest) {
    if (flipped.length > 0) return { findings: [], record };
    const shown = considered
      .slice(0, 5)
      .map((n) => `"${n}"`)
      .join(', ');
    return {
      findings: [
        {
          rule: 'tests-pass-without-change',
          file: tests[0]?.path,
          detail: `the new tests pass without the change: they do not test it (${shown}, ${where})`,
        },
      ],
      record,
    };
  }
  // No per-test identity: a test gate that failed without the source change is the evidence.
  const telling = run.results.filter((r) => !input.baselineRed.has(r.command));
  if (telling.length === 0) return skip('every test gate was red before iteration 1');
  if (telling.some((r) => r.status !== 'pass')) {
    return { findings: [], record: { ...record, flipped: ['(a test gate failed)'] } };
  }
  return {
    findings: [
      {
        rule: 'tests-pass-without-change',
        file: tests[0]?.path,
        detail: `every test gate passes without the claim's source change (${where}): its tests do not test it`,
      },
    ],
    record,
  };
}
