import type { LoopEventWithTime } from '../loop/events.js';
import type { StopReason } from '../state/stop-reasons.js';
import type { WorkerOutcome } from './decide-fleet.js';

/** Everything a fleet reports, as typed events: `.star/fleet/log.jsonl`, `--json` lines, the terminal. */
export type FleetEvent =
  | { type: 'fleet.started'; fleetId: string; continued: boolean; workers: number; branch: string; queue: string[] }
  | {
      type: 'worker.started';
      slot: number;
      story: string;
      attempt: number;
      branch: string;
      worktree: string;
      continued: boolean;
    }
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
  /** One of the fleet's own gates (the baseline, a merge's) still running, every 15 s. */
  | { type: 'gate.running'; gate: string; command: string; elapsedMs: number }
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
