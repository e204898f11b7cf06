import type { RunOptions } from '../config/options.js';
import type { RunState } from '../state/state-schema.js';

/** What is left of --max-time (infinite without one), from the time the run has been active so far. */
export function timeLeft(options: Pick<RunOptions, 'maxTimeMs'>, state: Pick<RunState, 'activeMs'>): number {
  return options.maxTimeMs !== undefined ? options.maxTimeMs - state.activeMs : Number.POSITIVE_INFINITY;
}
