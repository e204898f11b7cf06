import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Prd } from '../prd/prd-schema.js';
import { readPrdNow } from '../prd/read-prd-passes.js';
import type { FleetState } from '../state/fleet-state-schema.js';
import { processRuns } from '../state/lock.js';
import type { StopReason } from '../state/stop-reasons.js';
import {
  decideFleetEnd,
  decideFleetStatus,
  fleetReadyStories,
  nextIdleWait,
  unfinishedStories,
} from './decide-fleet.js';
import type { FleetContext } from './fleet-context.js';
import { FleetLedger } from './fleet-ledger.js';
import { MergeQueue } from './merge-queue.js';
import { StoryLifecycle } from './story-lifecycle.js';
import { WorkerPool } from './worker-pool.js';

/**
 * A worker of a fleet that died, still finishing its iteration: its PID runs and, where /proc says, it is
 * still a `star-loop run --story` process (not another process that got the PID since).
 */
function workerStillRuns(pid: number): boolean {
  if (!processRuns(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--story');
  } catch {
    return true;
  }
}

/** Workers of a fleet that died heard the channel close and stop after their iteration: wait for them. */
async function waitForOrphans(ctx: FleetContext, ledger: FleetLedger): Promise<void> {
  const { state } = ledger;
  for (const worker of state.running) {
    if (worker.pid && workerStillRuns(worker.pid)) {
      const who = `${worker.story} (PID ${worker.pid})`;
      const message = `waiting for the previous fleet's worker on ${who} to finish its iteration`;
      ctx.emit({ type: 'warning', message });
    }
    while (worker.pid && workerStillRuns(worker.pid)) await new Promise((r) => setTimeout(r, 200));
    const story = state.stories[worker.story];
    if (story?.status === 'running') story.status = 'queued';
  }
  state.running = [];
  for (const story of Object.values(state.stories)) if (story.status === 'running') story.status = 'queued';
  await ledger.save();
}

/** A wait that ends after `ms`, or as soon as something changed. */
class Waker {
  private nudge: () => void = () => {};

  wake(): void {
    this.nudge();
  }

  async wait(ms: number, now: boolean): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.nudge = () => {
        clearTimeout(timer);
        resolve();
      };
      if (now) this.nudge();
    });
    this.nudge = () => {};
  }
}

/**
 * The fleet: a dependency-aware queue (prd.json on the integration branch plus `.star/fleet.json`), up to
 * N workers — each `star-loop run --story ID` in a worktree of its own (WorkerPool) — the stories' lifecycle
 * between them (StoryLifecycle), and exactly one merge at a time into the integration branch (MergeQueue).
 * Every change of state is written at once (FleetLedger), so a fleet killed at any moment continues with
 * `star-loop resume`.
 */
export async function runFleet(ctx: FleetContext, state: FleetState): Promise<{ reason: StopReason; detail: string }> {
  const ledger = new FleetLedger(state, ctx.paths.fleet);
  const waker = new Waker();
  const lifecycle = new StoryLifecycle(ctx, ledger);
  const pool = new WorkerPool(ctx, ledger, lifecycle, () => waker.wake());
  const merges = new MergeQueue(ctx, ledger, lifecycle);
  ledger.onStop = (signal) => {
    pool.signalAll(signal);
    waker.wake();
  };
  const onGentle = () => ledger.stop('stopped', 'stopped by the user');
  const onNow = () => ledger.stop('stopped', 'stopped by the user', 'SIGTERM');
  ctx.stopRequested.addEventListener('abort', onGentle, { once: true });
  ctx.signal.addEventListener('abort', onNow, { once: true });
  if (ctx.stopRequested.aborted) onGentle();
  if (ctx.signal.aborted) onNow();
  await waitForOrphans(ctx, ledger);

  const readPrd = async (): Promise<Prd> => {
    const now = await readPrdNow(join(ctx.root, state.prd));
    if (!now.loaded) throw new Error(`${state.prd} on ${state.branch} cannot be read: ${now.error}`);
    return now.loaded.prd;
  };
  const first = ctx.idleBackoffMs ?? 1000;
  let backoff = first;
  for (;;) {
    for (let next = pool.takeEnded(); next; next = pool.takeEnded()) {
      await lifecycle.workerEnded(next.worker, next.exit, (id) => merges.add(id));
    }
    // One merge at a time, in the order the stories were verified; none while stopping at once.
    await merges.drain(readPrd);
    const ready = fleetReadyStories(await readPrd(), state).filter((id) => !pool.runs(id));
    let started = 0;
    for (let slot = 1; !ledger.stopping && slot <= ctx.workers && ready.length > 0; slot++) {
      if (pool.isBusy(slot)) continue;
      const id = ready.shift();
      if (id) {
        await pool.start(slot, id);
        started += 1;
      }
    }
    if (pool.size === 0 && !pool.hasEnded() && !merges.ready() && (ledger.stopping || ready.length === 0)) break;
    if (started > 0) backoff = nextIdleWait(backoff, true, first);
    // Wait for a worker to end, or re-read the queue after a backoff that grows while nothing can start.
    await waker.wait(backoff, pool.hasEnded() || merges.ready());
    if (started === 0 && !pool.hasEnded()) backoff = nextIdleWait(backoff, false, first);
  }
  ctx.stopRequested.removeEventListener('abort', onGentle);
  ctx.signal.removeEventListener('abort', onNow);

  const parked = Object.entries(state.stories)
    .filter(([, s]) => s.status === 'parked')
    .map(([id]) => id);
  const end = decideFleetEnd({
    stopping: ledger.stopping,
    unfinished: unfinishedStories(await readPrd(), state),
    parked,
  });
  state.status = decideFleetStatus(end.reason);
  state.stopReason = end.reason;
  state.stopDetail = end.detail;
  state.endedAt = new Date().toISOString();
  await ledger.save();
  return end;
}
