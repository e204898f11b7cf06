import type { StopReason } from '../state/stop-reasons.js';

/** What earlier iterations said that decides whether the next one starts (kept between iterations). */
export interface LoopSignals {
  /** A stall streak reached --stall-after (and --on-stall said pause or stop). */
  stalled?: string;
  /** A safety boundary was crossed. */
  safety?: string;
  repeatedError?: string;
  oscillating?: string;
  /** A breaker that tripped: a repeated claim, a hazard, a provider that stayed limited, a named stall. */
  breaker?: { reason: StopReason; detail: string };
  /** The last iteration completed a stall streak (plain or named): --on-stall decides pause or stop. */
  stallStop: boolean;
  pauseOnStall: boolean;
}

export const NO_SIGNALS: LoopSignals = { stallStop: false, pauseOnStall: true };
