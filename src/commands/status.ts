import { ExitCode, InputError } from '../errors.js';
import { FLEET_SCHEMA_VERSION, fleetStateSchema } from '../fleet/fleet-state-schema.js';
import { describeFleetStatus, renderFleetStatus } from '../fleet/fleet-status.js';
import { Git } from '../git/git.js';
import { printLine } from '../report/terminal-output.js';
import { isStale, readLock } from '../state/run-lock.js';
import type { RunState } from '../state/run-state-schema.js';
import { starPaths } from '../state/star-paths.js';
import { readState, readStateFile } from '../state/state-store.js';
import { formatUsd, sumUsage } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';
import { latestIsFleet } from './resume.js';

export interface Status {
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
export function describeStatus(state: RunState, lockPid: number | undefined): Status {
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

export function renderStatus(s: Status): string {
  const lines = [
    `run ${s.runId}: ${s.state}${s.pid ? ` (PID ${s.pid})` : ''}${s.stopReason ? ` — ${s.stopReason} (exit ${s.exitCode})` : ''}`,
    `  ${s.mode === 'prd' ? 'PRD' : 'task'}: ${s.target}${s.branch ? ` on ${s.branch}` : ''}${s.worktree ? ` in ${s.worktree}` : ''}`,
    `  iteration ${s.iteration}${s.inProgress ? ' (in progress)' : ''}${s.story ? `, story ${s.story}` : ''}; this run: ${s.iterationsThisRun} iterations + ${s.verifierRuns} verifier runs${s.maxIterations ? ` of ${s.maxIterations}` : ''}`,
    `  active ${formatDuration(s.activeMs)}${s.maxTimeMs ? ` of ${formatDuration(s.maxTimeMs)}` : ''}; accepted ${s.accepted}`,
    `  cost ${s.costUnknownRuns > 0 && s.costUsd === 0 ? 'unknown' : `${formatUsd(s.costUsd)}${s.costUnknownRuns > 0 ? ' + unknown' : ''}`}${s.maxCostUsd !== undefined ? ` of ${formatUsd(s.maxCostUsd)}` : ''}; tokens ${s.tokens}${s.maxTokens !== undefined ? ` of ${s.maxTokens}` : ''}`,
  ];
  if (s.waitingUntil) lines.push(`  waiting out a rate limit until ${s.waitingUntil}`);
  if (s.lastVerdict)
    lines.push(
      `  last verdict: iteration ${s.lastVerdict.iteration}${s.lastVerdict.story ? ` (${s.lastVerdict.story})` : ''} ${s.lastVerdict.verdict}`,
    );
  if (s.state === 'crashed') lines.push('  the runner is gone: run the same `star-loop run …` command again to continue');
  return lines.join('\n');
}

export async function statusCommand(flags: { json?: boolean }): Promise<ExitCode> {
  const root = await Git.topLevel(process.cwd());
  if (!root) throw new InputError(`${process.cwd()} is not inside a git repository`, 'run it in the repository the loop runs in');
  const paths = starPaths(root);
  if (await latestIsFleet(root)) {
    const fleet = await readStateFile(paths.fleet, fleetStateSchema, FLEET_SCHEMA_VERSION);
    if (fleet) {
      const lock = await readLock(paths.lock);
      const status = describeFleetStatus(fleet, lock && !isStale(lock) ? lock.pid : undefined);
      printLine(flags.json ? JSON.stringify(status) : renderFleetStatus(status));
      return ExitCode.Complete;
    }
  }
  const state = await readState(paths.state);
  if (!state) throw new InputError(`no star-loop run in ${root} (no .star/state.json)`, 'start one with `star-loop run`');
  const lock = await readLock(paths.lock);
  const status = describeStatus(state, lock && !isStale(lock) ? lock.pid : undefined);
  printLine(flags.json ? JSON.stringify(status) : renderStatus(status));
  return ExitCode.Complete;
}
