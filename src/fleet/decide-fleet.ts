import type { FleetDenial, PermitAnswer } from '../loop/fleet-permit.js';
import type { Prd } from '../prd/prd-schema.js';
import { passedIds, readyStories } from '../prd/select-next-story.js';
import type { FleetState, FleetStory } from '../state/fleet-state-schema.js';
import type { StopReason } from '../state/stop-reasons.js';
import { checkBudgetTotals } from '../usage/check-budgets.js';

/**
 * A story's branch: `<branchName>--<id>`. Not `<branchName>/<id>`: git cannot hold a branch `feature` and a
 * branch `feature/US-001` at once, and the integration branch exists.
 */
export function storyBranch(integration: string, story: string): string {
  return `${integration}--${story.replace(/[^\w.-]+/g, '-')}`;
}

/** Where an attempt's branch is set aside when the story goes back to the queue (nothing is deleted). */
export function setAsideBranch(integration: string, story: string, attempt: number): string {
  return `${storyBranch(integration, story)}--attempt-${attempt}`;
}

/**
 * The stories a free worker may take now, in order: not yet merged, not taken, not parked, and every
 * `dependsOn` story merged (or already passing on the integration branch).
 */
export function fleetReadyStories(prd: Prd, fleet: Pick<FleetState, 'stories'>): string[] {
  const passed = passedIds(prd);
  const taken = new Set<string>();
  for (const [id, story] of Object.entries(fleet.stories)) {
    if (story.status === 'merged') passed.add(id);
    else if (story.status !== 'queued') taken.add(id);
  }
  return readyStories(prd, passed, taken).map((s) => s.id);
}

/** Stories with work left: neither passing on the integration branch nor merged. */
export function unfinishedStories(prd: Prd, fleet: Pick<FleetState, 'stories'>): string[] {
  return prd.userStories.filter((s) => !s.passes && fleet.stories[s.id]?.status !== 'merged').map((s) => s.id);
}

export interface PermitInput {
  /** The fleet is stopping (a user's stop, a budget, a safety stop): no new iteration starts. */
  stopping?: FleetDenial;
  limits: FleetState['limits'];
  spent: FleetState['spent'];
  /** Workers in an iteration whose verifier has not run yet: each may still need one verifier run. */
  unverified: number;
  /** Other workers in an iteration: each is assumed to cost as much as the dearest iteration so far. */
  inflight: number;
  verify: boolean;
  activeMs: number;
}

/**
 * Before a worker's iteration (pure): the fleet's budgets are shared, so the same rules as a single loop's
 * (src/loop/decide-next-step.ts) apply to the sum of every worker's runs, with one verifier run kept back
 * for each iteration under way, and the cost and tokens of the iterations under way counted as the dearest
 * so far.
 */
export function decidePermit(input: PermitInput): PermitAnswer {
  const deny = (denial: FleetDenial): PermitAnswer => ({ type: 'permit', granted: false, ...denial });
  if (input.stopping) return deny(input.stopping);
  const { limits, spent } = input;
  const used = spent.iterations + spent.verifierRuns;
  const reserve = input.verify ? input.unverified + 1 : 0;
  if (used + 1 + reserve > limits.maxIterations) {
    return deny({
      reason: 'max-iterations',
      detail:
        `the fleet reached --max-iterations ${limits.maxIterations} (${used} agent runs, ${reserve} kept to ` +
        `verify claims under way)`,
    });
  }
  if (limits.maxTimeMs !== undefined && input.activeMs >= limits.maxTimeMs) {
    return deny({ reason: 'max-time', detail: 'the fleet reached --max-time' });
  }
  const committed = {
    costUsd: spent.costUsd + input.inflight * spent.dearestCostUsd,
    tokens: spent.tokens + input.inflight * spent.dearestTokens,
    unknownCostRuns: spent.unknownCostRuns,
  };
  const budget = checkBudgetTotals(limits, committed, { costUsd: spent.dearestCostUsd, tokens: spent.dearestTokens });
  if (budget) return deny({ reason: budget.reason, detail: `the fleet: ${budget.detail}` });
  return { type: 'permit', granted: true };
}

/** How a worker process ended, as the fleet saw it. */
export interface WorkerEnd {
  exitCode?: number;
  signal?: string;
  /** From the worker's `run.finished` event; absent when it died or refused to start. */
  finished?: { stopReason: StopReason; detail: string };
  /** The last lines the worker wrote to stderr (its refusal, or its crash). */
  stderrTail: string;
  /** The fleet asked it to stop (pause, stop, a budget of the fleet). */
  fleetStopping: boolean;
}

export type WorkerOutcome =
  /** Verified on its branch: on to the merge serializer. */
  | { kind: 'merge' }
  /** Stopped because the fleet is stopping: back to the queue, to continue in the same worktree. */
  | { kind: 'pause'; detail: string }
  /** Died (signal, crash, or stopped from outside): replaced, continuing in the same worktree. */
  | { kind: 'died'; detail: string }
  /** Needs a human: set aside, the others go on. */
  | { kind: 'park'; detail: string }
  /** Ends the fleet: a safety stop, a shared budget, or a refusal every worker would meet. */
  | { kind: 'stop-fleet'; reason: StopReason; detail: string };

const FLEET_STOPS: ReadonlySet<StopReason> = new Set([
  'safety',
  'max-iterations',
  'max-time',
  'max-cost',
  'max-tokens',
  'cost-unknown',
  'rate-limited',
]);

/** What the end of a worker means for its story and for the fleet (pure). */
export function decideWorkerOutcome(end: WorkerEnd): WorkerOutcome {
  const finished = end.finished;
  if (!finished) {
    const why = end.stderrTail.trim().split('\n').slice(-3).join(' ').trim();
    // Exit 2 or 4 without a run: the worker refused to start (bad flags, a refused workspace).
    if (!end.signal && (end.exitCode === 2 || end.exitCode === 4)) {
      return {
        kind: 'stop-fleet',
        reason: 'refused',
        detail: `a worker refused to start (exit ${end.exitCode}): ${why || 'no message'}`,
      };
    }
    const how = end.signal ? `killed by ${end.signal}` : `exited ${end.exitCode ?? '?'} without finishing its run`;
    return { kind: 'died', detail: `the worker ${how}${why ? `: ${why}` : ''}` };
  }
  const { stopReason, detail } = finished;
  if (stopReason === 'complete') return { kind: 'merge' };
  if (stopReason === 'stopped')
    return end.fleetStopping
      ? { kind: 'pause', detail }
      : { kind: 'died', detail: `the worker was stopped from outside the fleet: ${detail}` };
  if (stopReason === 'error') return { kind: 'died', detail };
  if (FLEET_STOPS.has(stopReason)) return { kind: 'stop-fleet', reason: stopReason, detail };
  return { kind: 'park', detail: `${stopReason}: ${detail}` };
}

/**
 * After a return (merge conflict, failure after the merge) or a death: parked once `max` is reached,
 * otherwise queued again.
 */
export function decideReturn(story: FleetStory, kind: 'return' | 'death', max: number): 'requeue' | 'park' {
  const count = kind === 'return' ? story.returns : story.deaths;
  return count >= max ? 'park' : 'requeue';
}

/** How a fleet ends once no worker runs and nothing can start (pure). */
export function decideFleetEnd(input: {
  stopping?: { reason: StopReason; detail: string };
  unfinished: string[];
  parked: string[];
}): {
  reason: StopReason;
  detail: string;
} {
  if (input.unfinished.length === 0 && input.stopping?.reason !== 'safety')
    return { reason: 'complete', detail: 'every story merged, with the gates green on the merged result' };
  if (input.stopping) return input.stopping;
  if (input.parked.length > 0) {
    return {
      reason: 'parked',
      detail:
        `parked for a human: ${input.parked.join(', ')}; waiting for them: ` +
        `${input.unfinished.filter((s) => !input.parked.includes(s)).join(', ') || 'none'} (see ` +
        `.star/pending_for_human.md)`,
    };
  }
  return {
    reason: 'stalled',
    detail: `no story can start: ${input.unfinished.join(', ')} wait for stories that are not in prd.json`,
  };
}

/**
 * Fleets that end for good. A fleet finishes on more than a single run does: a parked story or an unknown
 * cost does not wait for `resume` (a new fleet takes parked stories up again). Every other stop is paused.
 */
const FLEET_FINISHING: ReadonlySet<StopReason> = new Set([
  'complete',
  'parked',
  'max-iterations',
  'max-time',
  'max-cost',
  'max-tokens',
  'cost-unknown',
  'safety',
]);

/** Whether a fleet that stopped for `reason` is finished or paused (pure). */
export function decideFleetStatus(reason: StopReason): 'finished' | 'paused' {
  return FLEET_FINISHING.has(reason) ? 'finished' : 'paused';
}

/** The longest the fleet waits before it looks at the queue again while nothing can start. */
export const MAX_IDLE_WAIT_MS = 60_000;

/**
 * The wait before the queue is read again (pure): back to `first` when a worker started, doubled (up to a
 * minute) while none could, so a fleet waiting on busy workers or a parked dependency does not spin.
 */
export function nextIdleWait(current: number, started: boolean, first: number): number {
  return started ? first : Math.min(current * 2, MAX_IDLE_WAIT_MS);
}
