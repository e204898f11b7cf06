import type { FleetState, TimelineEntry } from '../state/fleet-state-schema.js';
import { writeState } from '../state/state-store.js';
import type { StopReason } from '../state/stop-reasons.js';

/**
 * The fleet's state and its one writer: every change is written to `.star/fleet.json` at once (one write at
 * a time, in order), so `status` sees it and a fleet killed at any moment continues with `resume`. Also
 * whether the fleet is stopping, and why: the first reason given wins.
 */
export class FleetLedger {
  private saving: Promise<void> = Promise.resolve();
  private readonly segmentStart = Date.now();
  private readonly activeBase: number;
  stopping?: { reason: StopReason; detail: string };
  /** Told of every stop: the workers get the signal, and the supervisor wakes up. */
  onStop: (signal: NodeJS.Signals) => void = () => {};

  constructor(
    readonly state: FleetState,
    private readonly file: string,
  ) {
    this.activeBase = state.activeMs;
  }

  /** Time the fleet has been running, over all its continuations. */
  activeMs(): number {
    return this.activeBase + (Date.now() - this.segmentStart);
  }

  save(): Promise<void> {
    this.state.activeMs = this.activeMs();
    this.state.updatedAt = new Date().toISOString();
    this.saving = this.saving.then(() => writeState(this.file, this.state));
    return this.saving;
  }

  /**
   * Stops the fleet: no new iteration or worker starts, and every worker gets `signal` — SIGINT to finish
   * its iteration, SIGTERM to end its agent at once. The first reason is the one the fleet ends with.
   */
  stop(reason: StopReason, detail: string, signal: NodeJS.Signals = 'SIGINT'): void {
    this.stopping ??= { reason, detail };
    this.onStop(signal);
  }

  /** An entry of the per-story timeline in the report. */
  log(entry: Omit<TimelineEntry, 'at'>): void {
    this.state.timeline.push({ at: new Date().toISOString(), ...entry });
  }
}
