import type { FleetState } from '../state/fleet-state-schema.js';
import { formatUsd } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';

export interface FleetStatus {
  kind: 'fleet';
  fleetId: string;
  /** `running` only while a live fleet holds the lock; `crashed` when the state says running and none does. */
  state: 'running' | 'crashed' | 'paused' | 'finished';
  pid?: number;
  prd: string;
  branch: string;
  workers: Array<{
    slot: number;
    story: string;
    attempt: number;
    iteration?: number;
    phase: string;
    elapsedMs: number;
    pid?: number;
  }>;
  stories: Record<'queued' | 'running' | 'merging' | 'merged' | 'parked', string[]>;
  merges: string[];
  iterations: number;
  verifierRuns: number;
  maxIterations: number;
  activeMs: number;
  maxTimeMs?: number;
  costUsd: number;
  maxCostUsd?: number;
  tokens: number;
  maxTokens?: number;
  stopReason?: string;
  exitCode?: number;
  detail?: string;
}

/** What a fleet is doing (or did), from `.star/fleet.json` alone. */
export function describeFleetStatus(state: FleetState, lockPid: number | undefined, now = Date.now()): FleetStatus {
  const stories: FleetStatus['stories'] = { queued: [], running: [], merging: [], merged: [], parked: [] };
  for (const [id, story] of Object.entries(state.stories)) stories[story.status].push(id);
  return {
    kind: 'fleet',
    fleetId: state.fleetId,
    state: state.status === 'running' ? (lockPid !== undefined ? 'running' : 'crashed') : state.status,
    pid: lockPid,
    prd: state.prd,
    branch: state.branch,
    workers: state.running.map((w) => ({
      slot: w.slot,
      story: w.story,
      attempt: w.attempt,
      iteration: w.iteration,
      phase: w.phase,
      elapsedMs: Math.max(0, now - Date.parse(w.startedAt)),
      pid: w.pid,
    })),
    stories,
    merges: state.merges.map((m) => m.story),
    iterations: state.spent.iterations,
    verifierRuns: state.spent.verifierRuns,
    maxIterations: state.limits.maxIterations,
    activeMs: state.activeMs,
    maxTimeMs: state.limits.maxTimeMs,
    costUsd: state.spent.costUsd,
    maxCostUsd: state.limits.maxCostUsd,
    tokens: state.spent.tokens,
    maxTokens: state.limits.maxTokens,
    stopReason: state.stopReason,
    exitCode: state.exitCode,
    detail: state.stopDetail,
  };
}

export function renderFleetStatus(s: FleetStatus): string {
  const list = (ids: string[]) => ids.join(', ') || 'none';
  const lines = [
    `fleet ${s.fleetId}: ` +
      `${s.state}${s.pid ? ` (PID ${s.pid})` : ''}${s.stopReason ? ` — ${s.stopReason} (exit ${s.exitCode})` : ''}`,
    `  PRD ${s.prd} → ${s.branch}; merged ${list(s.merges)}; merging ${list(s.stories.merging)}; queued ` +
      `${list(s.stories.queued)}; parked ${list(s.stories.parked)}`,
    ...s.workers.map(
      (w) =>
        `  worker ${w.slot}: ${w.story} attempt ` +
        `${w.attempt}${w.iteration !== undefined ? `, iteration ${w.iteration}` : ''}, ${w.phase}, ` +
        `${formatDuration(w.elapsedMs)}${w.pid ? ` (PID ${w.pid})` : ''}`,
    ),
    `  ${s.iterations} iterations + ${s.verifierRuns} verifier runs of ${s.maxIterations}; active ` +
      `${formatDuration(s.activeMs)}${s.maxTimeMs ? ` of ${formatDuration(s.maxTimeMs)}` : ''}; cost ` +
      `${formatUsd(s.costUsd)}${s.maxCostUsd !== undefined ? ` of ${formatUsd(s.maxCostUsd)}` : ''}; tokens ` +
      `${s.tokens}${s.maxTokens !== undefined ? ` of ${s.maxTokens}` : ''}`,
  ];
  if (s.detail && s.state !== 'running') lines.push(`  ${s.detail}`);
  if (s.state === 'crashed')
    lines.push('  the fleet is gone: `star-loop resume` continues it (its workers stop after their iteration)');
  return lines.join('\n');
}
