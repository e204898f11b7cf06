import type { LoopEventWithTime } from '../loop/events.js';
import type { FleetState } from '../state/fleet-state-schema.js';
import { iterationUsage } from '../usage/sum-usage.js';

/** What the fleet tracks of a running worker process (its slot, story and where it is in an iteration). */
export interface WorkerProgress {
  slot: number;
  story: string;
  attempt: number;
  inIteration: boolean;
  verifierStarted: boolean;
  /** `iteration.finished` events read from this worker process. */
  finishedIterations: number;
}

/**
 * One event a worker printed, into the fleet's state: the worker's phase (for `status`), the spending of the
 * whole fleet and of the story (the shared budgets), the timeline. Returns whether the state changed.
 */
export function foldWorkerEvent(state: FleetState, worker: WorkerProgress, event: LoopEventWithTime): boolean {
  const record = state.running.find((w) => w.slot === worker.slot);
  const story = state.stories[worker.story];
  const phase = (p: NonNullable<typeof record>['phase']) => {
    if (record) {
      record.phase = p;
      record.phaseAt = event.time;
    }
  };
  switch (event.type) {
    case 'iteration.started':
      worker.inIteration = true;
      worker.verifierStarted = false;
      if (record) record.iteration = event.iteration;
      phase('agent');
      return true;
    case 'gate.finished':
    case 'gate.running':
      phase('gates');
      return true;
    case 'agent.rate-limited':
      phase('waiting');
      return true;
    case 'verifier.started':
      worker.verifierStarted = true;
      state.spent.verifierRuns += 1;
      phase('verifying');
      return true;
    case 'iteration.finished': {
      worker.inIteration = false;
      worker.finishedIterations += 1;
      const usage = iterationUsage(event.record);
      const { spent } = state;
      spent.costUsd += usage.costUsd;
      spent.tokens += usage.tokens;
      spent.unknownCostRuns += usage.unknownCostRuns;
      spent.dearestCostUsd = Math.max(spent.dearestCostUsd, usage.costUsd);
      spent.dearestTokens = Math.max(spent.dearestTokens, usage.tokens);
      if (story) {
        story.iterations += 1;
        story.costUsd += usage.costUsd;
        story.unknownCostRuns += usage.unknownCostRuns;
        story.tokens += usage.tokens;
        story.runCostUsd += usage.costUsd;
        story.runTokens += usage.tokens;
      }
      const detail = `iteration ${event.record.n}: ${event.record.verdict}`;
      state.timeline.push({
        at: new Date().toISOString(),
        story: worker.story,
        attempt: worker.attempt,
        slot: worker.slot,
        event: 'iteration',
        detail,
      });
      phase('agent');
      return true;
    }
    case 'run.finished':
      phase('stopping');
      return true;
    default:
      return false;
  }
}
