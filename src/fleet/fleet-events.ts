import type { LoopEventWithTime } from '../loop/events.js';
import { renderEventLine } from '../report/render-event-line.js';
import type { StopReason } from '../state/run-state-schema.js';
import type { WorkerOutcome } from './decide-fleet.js';

/** Everything a fleet reports, as typed events: `.star/fleet/log.jsonl`, `--json` lines, the terminal. */
export type FleetEvent =
  | { type: 'fleet.started'; fleetId: string; continued: boolean; workers: number; branch: string; queue: string[] }
  | { type: 'worker.started'; slot: number; story: string; attempt: number; branch: string; worktree: string; continued: boolean }
  /** An event of the worker's own loop (`star-loop schema events`), as it printed it. */
  | { type: 'worker.event'; slot: number; story: string; attempt: number; event: LoopEventWithTime }
  | {
      type: 'worker.finished';
      slot: number;
      story: string;
      attempt: number;
      outcome: WorkerOutcome['kind'];
      exitCode?: number;
      detail: string;
    }
  | { type: 'merge.started'; story: string; attempt: number }
  | { type: 'story.merged'; story: string; attempt: number; commit: string; order: number }
  | {
      type: 'story.returned';
      story: string;
      attempt: number;
      why: 'merge-conflict' | 'failed-after-merge' | 'died';
      detail: string;
      next: 'requeue' | 'park';
    }
  | { type: 'story.parked'; story: string; attempt: number; detail: string }
  | { type: 'warning'; message: string }
  | {
      type: 'fleet.finished';
      fleetId: string;
      stopReason: StopReason;
      exitCode: number;
      detail: string;
      merged: string[];
      parked: string[];
      remaining: string[];
      reportFile: string;
    };

export type FleetEventWithTime = FleetEvent & { time: string };

/** The worker events worth a line in the fleet's human output (the rest are in its log). */
const SHOWN: ReadonlySet<string> = new Set(['iteration.started', 'claim.verdict', 'verifier.started', 'agent.rate-limited', 'warning']);

/** One concise human line (or none) per fleet event. Pure. */
export function renderFleetLine(event: FleetEvent): string | undefined {
  switch (event.type) {
    case 'fleet.started':
      return `star-loop fleet ${event.fleetId}${event.continued ? ' (continued)' : ''}: ${event.workers} workers on ${event.branch}; queue: ${event.queue.join(', ') || 'empty'}`;
    case 'worker.started':
      return `[w${event.slot}] ${event.story} attempt ${event.attempt}: ${event.continued ? 'continuing' : 'started'} on ${event.branch} in ${event.worktree}`;
    case 'worker.event': {
      if (!SHOWN.has(event.event.type)) return undefined;
      const line = renderEventLine(event.event);
      return line === undefined ? undefined : `[w${event.slot} ${event.story}] ${line.trim().split('\n')[0]}`;
    }
    case 'worker.finished':
      return `[w${event.slot}] ${event.story} attempt ${event.attempt}: ${event.outcome}${event.exitCode !== undefined ? ` (exit ${event.exitCode})` : ''} — ${event.detail}`;
    case 'merge.started':
      return `merging ${event.story} (attempt ${event.attempt}): gates on the merged result`;
    case 'story.merged':
      return `✔ ${event.story} merged as #${event.order} (${event.commit.slice(0, 10)})`;
    case 'story.returned':
      return `↺ ${event.story} attempt ${event.attempt}: ${event.why} — ${event.detail}; ${event.next === 'park' ? 'parked for a human' : 'back to the queue'}`;
    case 'story.parked':
      return `⏸ ${event.story} parked for a human: ${event.detail}`;
    case 'warning':
      return `warning: ${event.message}`;
    case 'fleet.finished':
      return [
        '',
        `star-loop fleet: ${event.stopReason} — ${event.detail} (exit ${event.exitCode})`,
        `  merged ${event.merged.join(', ') || 'nothing'}; parked ${event.parked.join(', ') || 'nothing'}; remaining ${event.remaining.join(', ') || 'nothing'}`,
        `  report: ${event.reportFile}`,
      ].join('\n');
  }
}
