import type { OnStall } from '../config/options.js';
import type { StopReason } from '../state/stop-reasons.js';

export type NextStep = { kind: 'iterate' } | { kind: 'stop'; reason: StopReason; detail: string };

export interface NextStepInput {
  aborted: boolean;
  /** Work left: stories without `passes`, or 1 for an unfinished task. */
  remaining: number;
  iterationsThisRun: number;
  /** Verifier runs count against the iteration budget too. */
  verifierRuns: number;
  /** Runs kept back so that a claim made in the next iteration can still be verified. */
  reserve: number;
  maxIterations: number;
  activeMs: number;
  maxTimeMs?: number;
  /** Set when the last iteration completed a stall streak and the user chose pause or stop. */
  stalled?: string;
  /** Set when a safety boundary was crossed: nothing else matters then. */
  safety?: string;
  /** Set when work remains but every story that could be taken is parked (or waits for a parked one). */
  parked?: string;
  /** Set when the same error ended too many iterations in a row. */
  repeatedError?: string;
  /** Set when the repository keeps flipping between two states. */
  oscillating?: string;
  /** A breaker that tripped after the last iteration: repeated claims, a headless hazard, a rate limit. */
  breaker?: { reason: StopReason; detail: string };
  /** A cost or token budget that is spent, or that the next iteration would not fit in. */
  budget?: { reason: StopReason; detail: string };
  /** In a fleet's worker: the fleet refused this iteration (a shared budget, or a stop). */
  denied?: { reason: StopReason; detail: string };
  /** PRD mode, all work done: stories accepted earlier that no longer hold at the final re-check. */
  regressed?: string;
  /** Why the gates cannot check a claim's tests: then "complete" is not "verified". */
  testsGap?: string;
  /** Stories parked for a human: a run that runs out of iterations or time with some parked needs a human first. */
  parkedStories?: readonly string[];
}

/** Before each iteration: stop, or go on. Completion first, so a last iteration that finished the work exits 0. */
export function decideNextStep(input: NextStepInput): NextStep {
  const step = firstStop(input);
  const parked = input.parkedStories ?? [];
  if (step.kind === 'stop' && parked.length > 0 && (step.reason === 'max-iterations' || step.reason === 'max-time')) {
    return { kind: 'stop', reason: 'parked', detail: `${step.detail}; parked for a human: ${parked.join(', ')}` };
  }
  return step;
}

function firstStop(input: NextStepInput): NextStep {
  if (input.safety) return { kind: 'stop', reason: 'safety', detail: input.safety };
  if (input.remaining === 0) {
    if (input.regressed) return { kind: 'stop', reason: 'regressed', detail: input.regressed };
    if (input.testsGap)
      return {
        kind: 'stop',
        reason: 'complete',
        detail: `checked by gates that do not test anything: ${input.testsGap}`,
      };
    return { kind: 'stop', reason: 'complete', detail: 'all work complete and verified' };
  }
  if (input.aborted) return { kind: 'stop', reason: 'stopped', detail: 'stopped by the user' };
  if (input.stalled) return { kind: 'stop', reason: 'stalled', detail: input.stalled };
  if (input.oscillating) return { kind: 'stop', reason: 'oscillating', detail: input.oscillating };
  if (input.repeatedError) return { kind: 'stop', reason: 'repeated-error', detail: input.repeatedError };
  if (input.breaker) return { kind: 'stop', ...input.breaker };
  if (input.parked) return { kind: 'stop', reason: 'parked', detail: input.parked };
  const used = input.iterationsThisRun + input.verifierRuns;
  if (used + 1 + input.reserve > input.maxIterations) {
    const kept =
      input.reserve > 0 && used < input.maxIterations
        ? ` (${input.maxIterations - used} left, kept in reserve to verify a claim)`
        : '';
    return {
      kind: 'stop',
      reason: 'max-iterations',
      detail: `reached --max-iterations ${input.maxIterations} with work remaining${kept}`,
    };
  }
  if (input.maxTimeMs !== undefined && input.activeMs >= input.maxTimeMs) {
    return { kind: 'stop', reason: 'max-time', detail: 'reached --max-time with work remaining' };
  }
  if (input.budget) return { kind: 'stop', ...input.budget };
  if (input.denied) return { kind: 'stop', ...input.denied };
  return { kind: 'iterate' };
}

/**
 * Runs that end for good: the work is done, a budget ran out, or a boundary was crossed. Every other stop
 * (the user, a stall, a breaker, a rate limit, an error) is paused: `star-loop resume` continues it with the
 * same id, counters and budgets. (A fleet finishes on a few more: src/fleet/decide-fleet.ts.)
 */
const RUN_FINISHING: ReadonlySet<StopReason> = new Set([
  'complete',
  'max-iterations',
  'max-time',
  'max-cost',
  'max-tokens',
  'regressed',
  'refused',
  'safety',
]);

/**
 * Whether a stopped run is paused (resumable) or finished (pure). A stop that came from a stall — plain or
 * named by a hazard — pauses or finishes as --on-stall said.
 */
export function decideStopStatus(
  reason: StopReason,
  stall: { fromStall: boolean; pause: boolean },
): 'paused' | 'finished' {
  const paused = stall.fromStall ? stall.pause : !RUN_FINISHING.has(reason);
  return paused ? 'paused' : 'finished';
}

export type StallAction = { kind: 'none' } | { kind: 'pause' | 'stop' | 'continue'; detail: string };

/** After each iteration: an iteration that did not move, or whose claim was rejected, adds to the streak. */
export function decideStall(streak: number, stallAfter: number, onStall: OnStall): StallAction {
  if (streak < stallAfter) return { kind: 'none' };
  const detail = `${streak} iterations in a row without movement or with a rejected claim`;
  return { kind: onStall, detail };
}
