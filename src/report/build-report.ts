import { type GateHealth, gateHealth } from '../gates/gate-health.js';
import type { Plan } from '../recon/plan.js';
import type { Recovery } from '../safety/evidence-store.js';
import type { Finding } from '../state/finding-schema.js';
import type { GateComparison, RunState, Verification } from '../state/state-schema.js';
import { iterationUsage, sumUsage, usageByStory } from '../usage/sum-usage.js';

export const REPORT_SCHEMA = 'star-loop/report@1';

/** report.json: for scripts. Its fields are documented in docs/files.md ("report.json"). */
export interface Report {
  schema: typeof REPORT_SCHEMA;
  runId: string;
  stopReason: NonNullable<RunState['stopReason']>;
  exitCode: number;
  detail: string;
  status: RunState['status'];
  mode: RunState['mode'];
  target: string;
  startedAt: string;
  endedAt?: string;
  activeMs: number;
  iterations: number;
  accepted: Array<{ story?: string; iteration: number }>;
  rejected: Array<{
    story?: string;
    iteration: number;
    findings: Array<{ rule: string; detail: string; gate?: string; command?: string }>;
  }>;
  remaining: string[];
  gates: Plan['gates'];
  /** Each gate: what it checks, how it stood before iteration 1, whether it gives a signal. */
  gateHealth: GateHealth[];
  /** Why the gates could not check a claim's tests, when they could not. */
  testsGap?: string;
  /** The run's total cost in USD; undefined when no agent run's cost is known. */
  costUsd?: number;
  /** Receipts: the run's and each story's cost and tokens, implementer and verifier runs together. */
  usage: {
    costUsd: number;
    /** reported (by the agents), estimated (from tokens and the price table), partial (some runs unknown), unknown. */
    costSource: 'reported' | 'estimated' | 'partial' | 'unknown';
    tokens: number;
    unknownCostRuns: number;
    byStory: Record<string, { costUsd: number; tokens: number; unknownCostRuns: number; iterations: number }>;
  };
  plan: Plan;
  table: Array<{
    iteration: number;
    story?: string;
    durationMs: number;
    moved: boolean;
    movement: string[];
    claim?: string[];
    verdict: 'accepted' | 'rejected' | 'no-claim';
    agentError?: string;
    /** The adapter that ran (a fallback while the primary was rate-limited). */
    agent?: string;
    costUsd?: number;
    costSource?: 'reported' | 'estimated' | 'unknown';
    tokens?: number;
    /** More than 1 when a rate limit was waited out. */
    attempts?: number;
    waitedMs?: number;
    hazard?: string;
    notes: string[];
  }>;
  /** How claims were verified (`off` means they were taken on the agent's word). */
  verify: string;
  /** Gates before iteration 1. */
  baseline?: RunState['baseline'];
  /** One entry per verified claim (and, with --verify every, per checked iteration). */
  claims: Array<{
    iteration: number;
    story?: string;
    verdict: 'accepted' | 'rejected' | 'no-claim';
    base: string;
    head: string;
    gates: GateComparison[];
    findings: Finding[];
    verifier?: { agent: string; verdict: 'accept' | 'reject'; error?: string; findings: Finding[] };
    /** What the tests showed: pass-to-pass's reference, fail-to-pass. */
    tests?: Verification['tests'];
  }>;
  /** PRD mode, at the end: accepted stories re-checked against the final HEAD. */
  recheck?: RunState['recheck'];
  /** Stories set aside for a human (see .star/pending_for_human.md), first thing to read. */
  parked: Array<{ story: string; iteration: number; findings: Finding[] }>;
  /** The branch the loop committed on, and its worktree (--worktree). */
  branch?: string;
  worktree?: string;
  /** Safety violations, with star-loop's refs that keep every commit of that iteration reachable. */
  safety: Array<{ iteration: number; violations: Finding[]; keptRefs: string[]; recovery: Recovery[] }>;
  runner: { peakRssBytes: number };
}

/** The receipts: the run's and each story's cost and tokens, with where the cost came from. */
function reportUsage(state: RunState): Report['usage'] {
  const total = sumUsage(state.records);
  const costSource =
    total.runs === 0 || total.unknownCostRuns === total.runs
      ? 'unknown'
      : total.unknownCostRuns > 0
        ? 'partial'
        : total.estimatedRuns > 0
          ? 'estimated'
          : 'reported';
  const byStory = Object.entries(usageByStory(state.records)).map(([story, u]) => [
    story,
    {
      costUsd: u.costUsd,
      tokens: u.tokens,
      unknownCostRuns: u.unknownCostRuns,
      iterations: state.records.filter((r) => (r.story ?? 'task') === story).length,
    },
  ]);
  return {
    costUsd: total.costUsd,
    costSource,
    tokens: total.tokens,
    unknownCostRuns: total.unknownCostRuns,
    byStory: Object.fromEntries(byStory),
  };
}

/** One row per iteration. */
function reportTable(records: RunState['records']): Report['table'] {
  return records.map((r) => {
    const usage = iterationUsage(r);
    return {
      iteration: r.n,
      story: r.story,
      durationMs: r.durationMs,
      moved: r.moved,
      movement: r.movement,
      claim: r.claim?.sources,
      verdict: r.verdict,
      agentError: r.agent.error,
      agent: r.agent.name,
      costUsd: usage.unknownCostRuns === usage.runs ? undefined : usage.costUsd,
      costSource: r.agent.usage?.costSource,
      tokens: usage.unknownTokenRuns === usage.runs ? undefined : usage.tokens,
      attempts: r.agent.attempts,
      waitedMs: r.agent.waitedMs,
      hazard: r.agent.hazard?.name,
      notes: r.claimNotes,
    };
  });
}

/** One entry per verified claim (and, with --verify every, per checked iteration). */
function reportClaims(records: RunState['records']): Report['claims'] {
  return records
    .filter((r) => r.verification)
    .map((r) => ({
      iteration: r.n,
      story: r.claim?.stories.join(', ') || r.story,
      verdict: r.verdict,
      base: r.verification?.base ?? '',
      head: r.verification?.head ?? '',
      gates: r.verification?.gates ?? [],
      findings: r.verification?.findings ?? [],
      tests: r.verification?.tests,
      verifier: r.verification?.verifier && {
        agent: r.verification.verifier.agent,
        verdict: r.verification.verifier.verdict,
        error: r.verification.verifier.error,
        findings: r.verification.verifier.findings,
      },
    }));
}

export function buildReport(input: {
  state: RunState;
  plan: Plan;
  remaining: string[];
  peakRssBytes: number;
  verify: string;
  /** Where the refs of safety stops can still be found, checked when the report is written. */
  recovery?: Recovery[];
}): Report {
  const { state, plan } = input;
  const total = sumUsage(state.records);
  return {
    schema: REPORT_SCHEMA,
    runId: state.runId,
    stopReason: state.stopReason ?? 'error',
    exitCode: state.exitCode ?? 1,
    detail: state.stopDetail ?? '',
    status: state.status,
    mode: state.mode,
    target: state.target,
    startedAt: state.startedAt,
    endedAt: state.endedAt,
    activeMs: state.activeMs,
    iterations: state.iterationsThisRun,
    accepted: state.accepted.map(({ story, iteration }) => ({ story, iteration })),
    rejected: state.records
      .filter((r) => r.verdict === 'rejected')
      .map((r) => ({
        story: r.claim?.stories.join(', ') || r.story,
        iteration: r.n,
        findings: r.findings.map(({ rule, detail, gate, command }) => ({ rule, detail, gate, command })),
      })),
    remaining: input.remaining,
    gates: plan.gates,
    gateHealth: gateHealth(plan.gates, state.baseline?.gates),
    testsGap: state.testsGap,
    costUsd: total.unknownCostRuns < total.runs ? total.costUsd : undefined,
    usage: reportUsage(state),
    // What the baseline showed is the biggest risk the plan could not see yet.
    plan: state.testsGap
      ? { ...plan, risks: [state.testsGap, ...plan.risks.filter((r) => !r.startsWith('no gate'))] }
      : plan,
    table: reportTable(state.records),
    verify: input.verify,
    baseline: state.baseline,
    claims: reportClaims(state.records),
    recheck: state.recheck,
    parked: state.parked,
    branch: state.branch,
    worktree: state.worktree,
    safety: state.records
      .filter((r) => r.safety.length > 0)
      .map((r) => ({
        iteration: r.n,
        violations: r.safety,
        keptRefs: r.keptRefs,
        recovery: (input.recovery ?? []).filter((k) => r.keptRefs.includes(k.ref)),
      })),
    runner: { peakRssBytes: input.peakRssBytes },
  };
}
