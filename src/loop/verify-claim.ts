import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { baselineTestsFile } from '../gates/run-baseline.js';
import { carryGateResults } from '../gates/run-gates.js';
import type { Finding } from '../state/finding-schema.js';
import type { ClaimRecord, GateResult, IterationRecord, RunState } from '../state/state-schema.js';
import { remainingBudget } from '../usage/check-budgets.js';
import { planFindings, untickedItems } from '../verify/judge-claim.js';
import { verifyWork } from '../verify/verify-work.js';
import type { IterationStart } from './begin-iteration.js';
import type { LoopContext } from './loop-context.js';
import { markStoriesPassed } from './settle-prd.js';
import { timeLeft } from './time-left.js';

/**
 * The tests.json pass-to-pass compares a claim with: the last accepted claim's run where it kept one, else
 * the baseline's (the later of the two known).
 */
function testsReference(ctx: LoopContext, state: RunState): string {
  const last = state.accepted.at(-1);
  const accepted = last ? join(ctx.paths.iterationDir(last.iteration), 'tests.json') : undefined;
  return accepted && existsSync(accepted) ? accepted : baselineTestsFile(join(ctx.paths.dir, 'baseline.log'));
}

/** How an iteration's claim (or, with --verify every, its work) was judged. */
export interface Judgement {
  verdict: IterationRecord['verdict'];
  findings: Finding[];
  gates: GateResult[];
  verification?: IterationRecord['verification'];
  /** PRD mode: the stories set to `passes: true` (and committed). */
  acceptedStories: string[];
  /** The verifier's provider stayed rate-limited: the claim is unverified, and the run pauses. */
  verifierRateLimited: boolean;
}

export interface ClaimToJudge {
  claim?: ClaimRecord;
  summary?: string;
  /** Task mode: the agent's plan after it ran. */
  planAfter?: string;
  /** What is said of the claim, for the record (appended to). */
  notes: string[];
  /** Held against the claim before verification: other stories claimed, prd.json left unreadable. */
  findings?: Finding[];
}

/**
 * Verification of a claim (and with --verify every, of work without one), and what comes of it: accepted
 * stories get `passes: true` from star-loop; a stop during the gates, or a verifier that stayed
 * rate-limited, leaves the claim unverified — neither accepted nor held against the agent.
 */
export async function verifyClaim(
  ctx: LoopContext,
  state: RunState,
  start: IterationStart,
  input: ClaimToJudge,
  save: () => Promise<void>,
): Promise<Judgement> {
  const { options, emit } = ctx;
  const { claim, notes } = input;
  const judged: Judgement = {
    verdict: 'no-claim',
    findings: [],
    gates: [],
    acceptedStories: [],
    verifierRateLimited: false,
  };
  const note = (text: string, warn: boolean) => {
    notes.push(text);
    if (warn) emit({ type: 'warning', message: text });
  };
  const head = await ctx.git.head();
  if (claim && options.verify === 'off') {
    judged.verdict = 'accepted';
    note("--verify off: accepted on the agent's word alone, unverified", false);
  } else if ((claim || options.verify === 'every') && head && start.workStart) {
    const outcome = await verifyWork(ctx.verify, {
      iteration: start.n,
      runDir: start.runDir,
      workStart: start.workStart,
      head,
      story: start.story,
      claimed: Boolean(claim),
      summary: input.summary,
      extraFindings: [
        ...(input.findings ?? []),
        ...(claim && options.mode === 'task' ? planFindings(untickedItems(input.planAfter ?? '')) : []),
      ],
      save,
      runId: state.runId,
      baseline: state.baseline,
      testsReference: testsReference(ctx, state),
      onVerifier: () => {
        state.verifierRuns += 1;
      },
      budget: remainingBudget(options, state.records),
      timeLeftMs: timeLeft(options, state),
    });
    judged.gates = outcome.gates;
    judged.verification = outcome.verification;
    const findings = outcome.verification.findings;
    const verifier = outcome.verification.verifier;
    if (!outcome.complete) {
      note('the claim was not verified: the run was stopped while the gates were running', true);
    } else if (verifier?.rateLimited) {
      judged.verifierRateLimited = true;
      note(`the claim was not verified: the verifier was rate-limited (${verifier.error ?? ''})`, true);
    } else if (claim) {
      judged.findings = findings;
      judged.verdict = findings.length === 0 ? 'accepted' : 'rejected';
      if (ctx.gates.length === 0 && judged.verdict === 'accepted') {
        note('no gates to run: accepted on the checks and the verifier alone — review this work', true);
      }
    } else if (findings.length > 0) {
      judged.findings = findings;
      note(`--verify every: ${findings.length} problem(s) found without a claim; handed to the next iteration`, false);
    }
  }
  if (claim && judged.verdict !== 'no-claim') {
    if (judged.verdict === 'accepted' && options.prdFile) {
      judged.acceptedStories = claim.stories;
      const verified = await ctx.git.head();
      const marked = await markStoriesPassed(ctx.git, options.prdFile, judged.acceptedStories, start.n);
      if (verified && marked) await carryGateResults(ctx.verify.gatePlace, ctx.gates, verified, marked);
    }
    emit({
      type: 'claim.verdict',
      iteration: start.n,
      verdict: judged.verdict,
      stories: claim.stories,
      findings: judged.findings,
    });
  }
  return judged;
}
