import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareGates } from '../gates/compare-gates.js';
import { runGatesOn } from '../gates/run-gates.js';
import type { Story } from '../prd/prd-schema.js';
import { describeTestEvidence } from '../prompt/describe-test-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import type { Baseline, GateResult, Verification } from '../state/state-schema.js';
import { buildChangeSet } from './build-change-set.js';
import { checkGatePins } from './check-gate-pins.js';
import { checkHooks } from './check-hooks.js';
import { checkTests } from './check-tests.js';
import { citeTestEvidence } from './cite-test-evidence.js';
import { cheatDetectors } from './detectors/index.js';
import { runVerifier } from './run-verifier.js';
import type { VerifyContext } from './verify-context.js';

export interface VerifyInput {
  iteration: number;
  runDir: string;
  /** Where the claimed work started (the story's first HEAD, or the run's). */
  workStart: string;
  head: string;
  story?: Story;
  /** Only a completion claim spends a verifier run; `--verify every` checks other iterations without one. */
  claimed: boolean;
  summary?: string;
  /** Task mode: unticked plan items, a finding of their own. */
  extraFindings: Finding[];
  /** Saves the run state (while the verifier waits out a rate limit). */
  save: () => Promise<void>;
  runId: string;
  /** The gates before iteration 1, and the commit they ran on. */
  baseline?: Baseline;
  /** The tests.json pass-to-pass compares with: the baseline's, or the last accepted claim's. */
  testsReference?: string;
  /** Called as the verifier starts: its run counts against the iteration budget. */
  onVerifier: () => void;
  /** What is left of the run's budgets for the verifier's agent run, and of --max-time. */
  budget: { maxCostUsd?: number; maxTurns?: number };
  timeLeftMs: number;
}

export interface VerifyOutcome {
  verification: Verification;
  gates: GateResult[];
  /** Every gate ran (a stop during verification leaves the claim unverified). */
  complete: boolean;
}

/**
 * Verification, cheapest first: the gates against their baseline; then the deterministic checks (gate pins,
 * cheat detectors, the repository's own hooks); then — only for a claim that passed all of those — the
 * adversarial verifier agent, the one step that spends tokens.
 */
export async function verifyWork(ctx: VerifyContext, input: VerifyInput): Promise<VerifyOutcome> {
  const { git, emit } = ctx;
  const {
    results: gates,
    findings: untrusted,
    tests,
  } = await runGatesOn(
    ctx.gates,
    {
      ...ctx.gatePlace,
      commit: input.head,
      installedAt: input.baseline?.commit,
      logFile: join(input.runDir, 'gates.log'),
    },
    ({ tail: _tail, ...result }) => emit({ type: 'gate.finished', iteration: input.iteration, result }),
  );
  const complete = gates.length === ctx.gates.length && !ctx.signal.aborted;
  const compared = compareGates(input.baseline?.gates ?? [], gates);
  const findings: Finding[] = [...compared.findings, ...untrusted, ...input.extraFindings];

  const intent = input.story ? `${input.story.title}\n${input.story.description ?? ''}` : (ctx.task ?? '');
  const exclude = new Set(ctx.prdRelative ? [ctx.prdRelative] : []);
  const gateFiles = new Set(ctx.gateFiles);
  const work = await buildChangeSet(git, input.workStart, input.head, intent, exclude, gateFiles);
  work.kind = input.story ? (input.story.kind ?? 'feature') : 'task';
  const evidence = await checkTests(ctx, {
    work,
    workStart: input.workStart,
    head: input.head,
    runDir: input.runDir,
    baseline: input.baseline,
    reference: input.testsReference,
    now: tests,
    results: gates,
    findingsSoFar: findings.length,
    claimed: input.claimed && complete,
  });
  findings.push(...evidence.findings);
  for (const detector of cheatDetectors) {
    const hints = detector.detect(work).filter((f) => !evidence.superseded.has(f.rule));
    findings.push(...hints.map((f) => citeTestEvidence(f, tests)));
  }
  const runStart = input.baseline?.commit ?? input.workStart;
  const sinceRunStart =
    runStart === input.workStart ? work : await buildChangeSet(git, runStart, input.head, intent, exclude, gateFiles);
  findings.push(...checkGatePins(sinceRunStart, ctx.gateFiles));
  // The repository's hook is run only on a claim nothing else has found fault with: a changed gate file may
  // be the hook itself (`.husky/pre-commit`), and a claim already rejected gains nothing from it.
  if (complete && findings.length === 0) {
    findings.push(
      ...(await checkHooks({
        git,
        root: ctx.root,
        base: input.workStart,
        head: input.head,
        logFile: join(input.runDir, 'hooks.log'),
        timeoutMs: ctx.gateTimeoutMs,
        env: ctx.env,
        signal: ctx.signal,
        redactor: ctx.redactor,
        sandbox: ctx.sandbox,
        dependencyDirs: ctx.gatePlace.dependencyDirs,
      })),
    );
  }

  const verification: Verification = {
    base: input.workStart,
    head: input.head,
    gates: compared.rows,
    findings,
    tests: evidence.record,
  };
  if (complete && input.claimed && findings.length === 0 && !ctx.signal.aborted) {
    input.onVerifier();
    emit({ type: 'verifier.started', iteration: input.iteration, agent: ctx.verifier.adapter.name });
    verification.verifier = await runVerifier(ctx, {
      runId: input.runId,
      iteration: input.iteration,
      runDir: input.runDir,
      base: input.workStart,
      head: input.head,
      story: input.story,
      task: ctx.task,
      summary: input.summary,
      evidence: describeTestEvidence(gates, evidence.record),
      save: input.save,
      budget: input.budget,
      timeLeftMs: input.timeLeftMs,
    });
    findings.push(...(verification.verifier.verdict === 'accept' ? [] : verification.verifier.findings));
    if (verification.verifier.safety?.length) {
      verification.safety = verification.verifier.safety;
      findings.push(...verification.verifier.safety);
    }
    emit({
      type: 'verifier.finished',
      iteration: input.iteration,
      verdict: verification.verifier.verdict,
      error: verification.verifier.error,
    });
  }
  await writeFile(join(input.runDir, 'verify.json'), `${JSON.stringify(verification, null, 2)}\n`, 'utf8');
  return { verification, gates, complete };
}
