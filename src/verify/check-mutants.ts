import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type Mutant, mutantsOf } from '../evidence/mutate.js';
import { runGatesOn } from '../gates/run-gates.js';
import { runCapture } from '../proc/run-capture.js';
import type { Finding } from '../state/finding-schema.js';
import type { GateResult, MutantsRecord } from '../state/state-schema.js';
import { type TestsFile, testId } from '../state/test-report-schema.js';
import type { ChangeSet } from './change-set.js';
import { isSnapshotFile, isTestFile } from './languages/index.js';
import type { VerifyContext } from './verify-context.js';

/** Mutants run whatever the time budget says, unless one is killed first (or --mutants is lower). */
const MIN_MUTANTS = 3;

/** Story kinds that add no behaviour for a test to pin down: their lines are not mutated. */
const KEEPS_BEHAVIOUR = new Set(['tests', 'refactor', 'docs', 'chore']);

/** A parser that reads a file without running it, per language; none for the others (their mutants stay type-safe). */
const PARSERS: Array<{ file: RegExp; command: string; args: (file: string) => string[] }> = [
  { file: /\.(c|m)?js$/, command: process.execPath, args: (f) => ['--check', f] },
  { file: /\.py$/, command: 'python3', args: (f) => ['-c', 'import ast,sys; ast.parse(open(sys.argv[1]).read())', f] },
];

/** Whether a mutant still parses (a mutant that does not is not run, and is reported as unloadable). */
async function parses(mutant: Mutant): Promise<boolean> {
  const parser = PARSERS.find((p) => p.file.test(mutant.path));
  if (!parser) return true;
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-mutant-'));
  try {
    const file = join(dir, basename(mutant.path));
    await writeFile(file, mutant.text);
    const result = await runCapture(parser.command, parser.args(file), { cwd: dir, timeoutMs: 20_000 }).catch(
      () => undefined,
    );
    return result === undefined || result.exitCode === 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface MutantInput {
  work: ChangeSet;
  head: string;
  installedAt?: string;
  runDir: string;
  /** The test gates' results and tests on the claim itself. */
  results: readonly GateResult[];
  tests: TestsFile['gates'];
  /**
   * Whether survivors reject the claim: it adds or changes tests, or --require-tests is on. A claim with no
   * test of its own has "no new test evidence", recorded unless --require-tests: its survivors are too.
   */
  decisive: boolean;
}

/** Killed: a test gate green on the claim is red on the mutant, or a test that passed on the claim does not. */
function killed(input: MutantInput, run: { results: GateResult[]; tests: TestsFile['gates'] }): boolean {
  for (const result of run.results) {
    const before = input.results.find((r) => r.command === result.command);
    if (before?.status === 'pass' && result.status !== 'pass') return true;
    const was = input.tests.find((g) => g.command === result.command)?.report.tests ?? [];
    const now = new Map(
      (run.tests.find((g) => g.command === result.command)?.report.tests ?? []).map((t) => [testId(t), t]),
    );
    if (was.some((t) => t.outcome === 'pass' && now.get(testId(t))?.outcome !== 'pass')) return true;
  }
  return false;
}

/**
 * Mutants of the claimed lines: the non-test lines the claim added or changed, mutated one at a time (a
 * flipped comparison or operator, a negated condition, a replaced return value, a dropped statement), each
 * in a throw-away copy of the claim with the test gates run on it, until one is killed — within the budget
 * (count and time, at least three). If none is killed, the claimed code can be broken without any test
 * noticing.
 */
export async function checkMutants(
  ctx: VerifyContext,
  input: MutantInput,
): Promise<{ findings: Finding[]; record: MutantsRecord }> {
  const { max, timeFactor } = ctx.mutants;
  const gates = ctx.gates.filter((g) => g.kind === 'test');
  if (max === 0) return { findings: [], record: { ran: false, reason: 'mutants are off (--mutants 0)' } };
  if (input.work.kind && KEEPS_BEHAVIOUR.has(input.work.kind)) {
    return { findings: [], record: { ran: false, reason: `the story's kind is "${input.work.kind}"` } };
  }
  const green = input.results.filter((r) => gates.some((g) => g.command === r.command) && r.status === 'pass');
  if (green.length === 0 && !input.tests.some((g) => g.report.evidence === 'per-test')) {
    return { findings: [], record: { ran: false, reason: 'no test gate passes on the claim to tell a mutant by' } };
  }
  const candidates = input.work.files
    .filter((f) => f.after !== undefined && !isTestFile(f.path) && !isSnapshotFile(f.path))
    .flatMap((f) =>
      mutantsOf(
        f.path,
        f.after ?? '',
        f.added.map((l) => l.line),
      ),
    );
  if (candidates.length === 0) {
    return { findings: [], record: { ran: false, reason: 'no line the claim added or changed could be mutated' } };
  }
  const testTime = input.results
    .filter((r) => gates.some((g) => g.command === r.command))
    .reduce((n, r) => n + r.durationMs, 0);
  const budgetMs = Math.max(1, timeFactor * testTime);
  const started = Date.now();
  const mutants: NonNullable<MutantsRecord['mutants']> = [];
  let run = 0;
  for (const mutant of candidates) {
    // One killed mutant is the evidence asked for; until then, at least MIN_MUTANTS (an equivalent mutant —
    // a change no test could see — must not decide alone), then as many as the time budget allows.
    if (mutants.some((m) => m.outcome === 'killed') || run >= max || ctx.signal.aborted) break;
    if (run >= Math.min(MIN_MUTANTS, max) && Date.now() - started >= budgetMs) break;
    const row = { path: mutant.path, line: mutant.line, change: mutant.change };
    if (!(await parses(mutant))) {
      mutants.push({ ...row, outcome: 'unloadable' });
      continue;
    }
    run++;
    const result = await runGatesOn(gates, {
      ...ctx.gatePlace,
      commit: input.head,
      installedAt: input.installedAt,
      logFile: join(input.runDir, 'mutants.log'),
      overlay: [{ path: mutant.path, content: mutant.text }],
    });
    mutants.push({ ...row, outcome: killed(input, result) ? 'killed' : 'survived' });
  }
  const record: MutantsRecord = { ran: run > 0, durationMs: Date.now() - started, mutants };
  if (run === 0) return { findings: [], record: { ...record, reason: 'no mutant of the claimed lines parses' } };
  const tried = mutants.filter((m) => m.outcome !== 'unloadable');
  if (tried.some((m) => m.outcome === 'killed')) return { findings: [], record };
  if (!input.decisive) return { findings: [], record: { ...record, advisory: true } };
  const shown = tried
    .slice(0, 4)
    .map((m) => `${m.path}:${m.line} \`${m.change}\``)
    .join(', ');
  return {
    findings: [
      {
        rule: 'mutants-survived',
        file: tried[0]?.path,
        line: tried[0]?.line,
        detail:
          `the claimed code can be broken without any test failing: ${tried.length} mutant` +
          `${tried.length === 1 ? '' : 's'} of the lines the claim added, none caught by the tests (${shown})`,
      },
    ],
    record,
  };
}
