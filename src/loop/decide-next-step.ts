import type { OnStall } from '../config/options.js';
import { ExitCode } from '../errors.js';
import type { StopReason } from '../state/state-schema.js';

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
}

/** Before each iteration: stop, or go on. Completion first, so a last iteration that finished the work exits 0. */
export function decideNextStep(input: NextStepInput): NextStep {
  if (input.safety) return { kind: 'stop', reason: 'safety', detail: input.safety };
  if (input.remaining === 0) return { kind: 'stop', reason: 'complete', detail: 'all work complete and verified' };
  if (input.aborted) return { kind: 'stop', reason: 'stopped', detail: 'stopped by the user' };
  if (input.stalled) return { kind: 'stop', reason: 'stalled', detail: input.stalled };
  if (input.oscillating) return { kind: 'stop', reason: 'oscillating', detail: input.oscillating };
  if (input.repeatedError) return { kind: 'stop', reason: 'repeated-error', detail: input.repeatedError };
  if (input.breaker) return { kind: 'stop', ...input.breaker };
  if (input.parked) return { kind: 'stop', reason: 'parked', detail: input.parked };
  const used = input.iterationsThisRun + input.verifierRuns;
  if (used + 1 + input.reserve > input.maxIterations) {
    const kept =
      input.reserve > 0 && used < input.maxIterations ? ` (${input.maxIterations - used} left, kept in reserve to verify a claim)` : '';
    return { kind: 'stop', reason: 'max-iterations', detail: `reached --max-iterations ${input.maxIterations} with work remaining${kept}` };
  }
  if (input.maxTimeMs !== undefined && input.activeMs >= input.maxTimeMs) {
    return { kind: 'stop', reason: 'max-time', detail: 'reached --max-time with work remaining' };
  }
  if (input.budget) return { kind: 'stop', ...input.budget };
  return { kind: 'iterate' };
}

export type StallAction = { kind: 'none' } | { kind: 'pause' | 'stop' | 'continue'; detail: string };

/** After each iteration: an iteration that did not move, or whose claim was rejected, adds to the streak. */
export function decideStall(streak: number, stallAfter: number, onStall: OnStall): StallAction {
  if (streak < stallAfter) return { kind: 'none' };
  const detail = `${streak} iterations in a row without movement or with a rejected claim`;
  return { kind: onStall, detail };
}

export function exitCodeFor(reason: StopReason): ExitCode {
  switch (reason) {
    case 'complete':
      return ExitCode.Complete;
    case 'max-iterations':
    case 'max-time':
    case 'max-cost':
    case 'max-tokens':
    case 'rate-limited':
      return ExitCode.Budget;
    case 'stalled':
    case 'parked':
    case 'repeated-error':
    case 'oscillating':
    case 'repeated-claim':
    case 'asked-question':
    case 'permission-denied':
    case 'plan-mode':
    case 'no-tool-calls':
    case 'idle-exit':
    case 'cost-unknown':
    case 'regressed':
    case 'refused':
      return ExitCode.NeedsHuman;
    case 'safety':
      return ExitCode.Safety;
    case 'stopped':
      return ExitCode.Stopped;
    case 'error':
      return ExitCode.Internal;
  }
}
