import type { AgentEvent } from '../agents/agent-run-context.js';
import type { Plan } from '../recon/plan.js';
import { redactDeep } from '../safety/redactor.js';
import type { Finding } from '../state/finding-schema.js';
import type { ClaimRecord, GateBaseline, IterationRecord } from '../state/state-schema.js';
import type { StopReason } from '../state/stop-reasons.js';
import type { VerifyEvent } from '../verify/verify-context.js';

/**
 * Everything the loop reports, as typed events. The loop only emits; subscribers write the NDJSON log,
 * render the terminal, or print `--json` lines.
 */
export type LoopEvent =
  | { type: 'run.started'; runId: string; continued: boolean; plan: Plan }
  | {
      type: 'iteration.started';
      iteration: number;
      index: number;
      maxIterations: number;
      story?: string;
      storyTitle?: string;
    }
  | {
      type: 'agent.finished';
      iteration: number;
      exitCode?: number;
      signal?: string;
      timedOut: boolean;
      isError: boolean;
      error?: string;
      durationMs: number;
      /** The adapter that ran: the fallback while the primary was rate-limited. */
      agent: string;
      costUsd?: number;
      attempts: number;
      /** Tool calls the agent made, where its output says. */
      toolCalls?: number;
    }
  | AgentEvent
  | { type: 'work.committed'; iteration: number; commit: string; message: string }
  | { type: 'passes.restored'; iteration: number; stories: string[] }
  | { type: 'claim.read'; iteration: number; claim?: ClaimRecord; notes: string[] }
  | { type: 'baseline.finished'; gates: GateBaseline[] }
  | VerifyEvent
  | {
      type: 'claim.verdict';
      iteration: number;
      verdict: 'accepted' | 'rejected';
      stories: string[];
      findings: Finding[];
    }
  | { type: 'iteration.finished'; record: IterationRecord; stallStreak: number }
  | { type: 'warning'; message: string }
  | {
      type: 'run.finished';
      runId: string;
      stopReason: StopReason;
      exitCode: number;
      detail: string;
      reportFile: string;
      iterations: number;
      accepted: number;
      rejected: number;
      remaining: string[];
    };

export type LoopEventWithTime = LoopEvent & { time: string };
export type Emit = (event: LoopEvent) => void;

/** Stamps each event with the time (credentials scrubbed) for every subscriber; the fleet's events too. */
export function createEmitter<E extends { type: string } = LoopEvent>(
  subscribers: Array<(event: E & { time: string }) => void>,
  redact?: (text: string) => string,
): (event: E) => void {
  return (event) => {
    const stamped = { ...(redact ? redactDeep(event, redact) : event), time: new Date().toISOString() };
    for (const subscriber of subscribers) subscriber(stamped);
  };
}
