import type { RunState } from '../state/state-schema.js';
import { formatUsd, sumUsage } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';

export interface RunStatus {
  runId: string;
  /** `running` only while a live runner holds the lock; `crashed` when the state says running and none does. */
  state: 'running' | 'crashed' | 'paused' | 'finished';
  mode: RunState['mode'];
  target: string;
  branch?: string;
  worktree?: string;
  pid?: number;
  iteration: number;
  /** An iteration has started and not finished. */
  inProgress: boolean;
  story?: string;
  iterationsThisRun: number;
  verifierRuns: number;
  maxIterations?: number;
  activeMs: number;
  maxTimeMs?: number;
  /** Budgets used so far: cost (USD, a floor when some runs reported none), tokens. */
  costUsd: number;
  costUnknownRuns: number;
  maxCostUsd?: number;
  tokens: number;
  maxTokens?: number;
  /** Set while a rate limit is being waited out: when the next attempt starts. */
  waitingUntil?: string;
  lastVerdict?: { iteration: number; verdict: string; story?: string };
  stopReason?: string;
  exitCode?: number;
  accepted: number;
}

/** What a run is doing (or did), from `.star/` alone. */
export function describeRunStatus(state: RunState, lockPid: number | undefined): RunStatus {
  const last = state.records.at(-1);
  const lastVerdict = [...state.records].reverse().find((r) => r.verdict !== 'no-claim');
  const live = lockPid !== undefined;
  const usage = sumUsage(state.records);
  return {
    runId: state.runId,
    state: state.status === 'running' ? (live ? 'running' : 'crashed') : state.status,
    mode: state.mode,
    target: state.target,
    branch: state.branch,
    worktree: state.worktree,
    pid: lockPid,
    iteration: state.lastIteration,
    inProgress: state.current !== undefined,
    story: state.current?.story ?? last?.story,
    iterationsThisRun: state.iterationsThisRun,
    verifierRuns: state.verifierRuns,
    maxIterations: state.limits?.maxIterations,
    activeMs: state.activeMs,
    maxTimeMs: state.limits?.maxTimeMs,
    costUsd: usage.costUsd,
    costUnknownRuns: usage.unknownCostRuns,
    maxCostUsd: state.limits?.maxCostUsd,
    tokens: usage.tokens,
    maxTokens: state.limits?.maxTokens,
    waitingUntil: state.current?.waitingUntil,
    lastVerdict: lastVerdict && { iteration: lastVerdict.n, verdict: lastVerdict.verdict, story: lastVerdict.story },
    stopReason: state.stopReason,
    exitCode: state.exitCode,
    accepted: state.accepted.length,
  };
}

/** ` of LIMIT` when there is a limit. */
const of = (limit: string | number | undefined) => (limit !== undefined ? ` of ${limit}` : '');

export function renderRunStatus(s: RunStatus): string {
  const ended = s.stopReason ? ` — ${s.stopReason} (exit ${s.exitCode})` : '';
  const where = `${s.branch ? ` on ${s.branch}` : ''}${s.worktree ? ` in ${s.worktree}` : ''}`;
  const now = `${s.inProgress ? ' (in progress)' : ''}${s.story ? `, story ${s.story}` : ''}`;
  const runs = `${s.iterationsThisRun} iterations + ${s.verifierRuns} verifier runs${of(s.maxIterations || undefined)}`;
  const spent = s.costUnknownRuns > 0 && s.costUsd === 0 ? 'unknown' : formatUsd(s.costUsd);
  const cost = `${spent}${s.costUnknownRuns > 0 && s.costUsd > 0 ? ' + unknown' : ''}`;
  const budget = s.maxCostUsd !== undefined ? of(formatUsd(s.maxCostUsd)) : '';
  const lines = [
    `run ${s.runId}: ${s.state}${s.pid ? ` (PID ${s.pid})` : ''}${ended}`,
    `  ${s.mode === 'prd' ? 'PRD' : 'task'}: ${s.target}${where}`,
    `  iteration ${s.iteration}${now}; this run: ${runs}`,
    `  active ${formatDuration(s.activeMs)}${of(s.maxTimeMs ? formatDuration(s.maxTimeMs) : undefined)}; ` +
      `accepted ${s.accepted}`,
    `  cost ${cost}${budget}; tokens ${s.tokens}${of(s.maxTokens)}`,
  ];
  if (s.waitingUntil) lines.push(`  waiting out a rate limit until ${s.waitingUntil}`);
  if (s.lastVerdict)
    lines.push(
      `  last verdict: iteration ${s.lastVerdict.iteration}${s.lastVerdict.story ? ` (${s.lastVerdict.story})` : ''} ` +
        s.lastVerdict.verdict,
    );
  if (s.state === 'crashed')
    lines.push('  the runner is gone: run the same `star-loop run …` command again to continue');
  return lines.join('\n');
}
