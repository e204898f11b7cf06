import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GATE_SCOPE_ENV } from '../gates/gate-cache.js';
import type { LoopEventWithTime } from '../loop/events.js';
import type { FleetDenial, PermitAnswer } from '../loop/fleet-permit.js';
import { signalProcess } from '../proc/run-process.js';
import { type FleetStory, newFleetStory } from '../state/fleet-state-schema.js';
import { decidePermit } from './decide-fleet.js';
import type { FleetContext } from './fleet-context.js';
import type { FleetLedger } from './fleet-ledger.js';
import { foldWorkerEvent, type WorkerProgress } from './fold-worker-event.js';
import { type PreparedWorktree, prepareWorktree } from './prepare-worktree.js';
import { runWorker, type WorkerExit } from './run-worker.js';
import type { StoryLifecycle } from './story-lifecycle.js';

interface Active extends WorkerProgress {
  pid?: number;
  /** A permit request waiting for the worker's earlier iterations to be read. */
  pendingPermit?: () => void;
  signalled?: NodeJS.Signals;
}

/**
 * Up to N workers, each `star-loop run --story ID` in its story's worktree: starting them, reading their
 * events, answering their permits (the fleet's shared budgets), signalling them to stop. A worker that ends
 * waits in `ended` until the supervisor hands it to the story lifecycle.
 */
export class WorkerPool {
  private readonly active = new Map<number, Active>();
  private readonly ended: Array<{ worker: Active; exit: WorkerExit }> = [];

  constructor(
    private readonly ctx: FleetContext,
    private readonly ledger: FleetLedger,
    private readonly lifecycle: StoryLifecycle,
    /** Told when a worker ends. */
    private readonly onEnded: () => void,
  ) {}

  get size(): number {
    return this.active.size;
  }

  isBusy(slot: number): boolean {
    return this.active.has(slot);
  }

  /** A story a worker is on now. */
  runs(story: string): boolean {
    return [...this.active.values()].some((w) => w.story === story);
  }

  hasEnded(): boolean {
    return this.ended.length > 0;
  }

  /** The next worker that ended, no longer counted as active. */
  takeEnded(): { worker: Active; exit: WorkerExit } | undefined {
    const next = this.ended.shift();
    if (next) this.active.delete(next.worker.slot);
    return next;
  }

  /** SIGINT: finish the iteration, then stop; SIGTERM: end the agent at once. Each worker hears each once. */
  signalAll(signal: NodeJS.Signals): void {
    for (const worker of this.active.values()) {
      if (worker.signalled === 'SIGTERM' || worker.signalled === signal) continue;
      worker.signalled = signal;
      signalProcess(worker.pid, signal);
    }
  }

  /** A worker for story `id` in `slot`, once its worktree is ready (else the story is parked or the fleet stops). */
  async start(slot: number, id: string): Promise<void> {
    const { state } = this.ledger;
    state.stories[id] ??= newFleetStory();
    const story = state.stories[id];
    const prepared = await prepareWorktree(this.ctx, this.ledger, this.lifecycle, id, story);
    if (!prepared) {
      await this.ledger.save();
      return;
    }
    const worker: Active = {
      slot,
      story: id,
      attempt: story.attempt,
      inIteration: false,
      verifierStarted: false,
      finishedIterations: 0,
    };
    this.active.set(slot, worker);
    const now = new Date().toISOString();
    state.running.push({ slot, story: id, attempt: story.attempt, startedAt: now, phase: 'starting', phaseAt: now });
    this.ledger.log({
      story: id,
      attempt: story.attempt,
      slot,
      event: prepared.continued ? 'resumed' : 'started',
      detail: prepared.branch,
    });
    const { dir: worktree, branch, continued } = prepared;
    this.ctx.emit({ type: 'worker.started', slot, story: id, attempt: story.attempt, branch, worktree, continued });
    const logFile = join(
      this.ctx.paths.fleetDir,
      'workers',
      `${id.replace(/[^\w.-]+/g, '-')}-attempt-${story.attempt}.log`,
    );
    await mkdir(dirname(logFile), { recursive: true });
    await this.ledger.save();
    this.run(worker, story, prepared, logFile).then(
      (exit) => this.end(worker, exit),
      (error: unknown) => this.end(worker, { stderrTail: `could not run the worker: ${(error as Error).message}` }),
    );
  }

  private end(worker: Active, exit: WorkerExit): void {
    this.ended.push({ worker, exit });
    this.onEnded();
  }

  private run(worker: Active, story: FleetStory, prepared: PreparedWorktree, logFile: string): Promise<WorkerExit> {
    const { ctx, ledger } = this;
    const { state } = ledger;
    const { limits } = state;
    return runWorker({
      story: worker.story,
      worktree: prepared.dir,
      branch: prepared.branch,
      prdFile: join(prepared.dir, state.prd),
      passArgs: ctx.passArgs,
      // The permits keep iterations and time exact across workers, so the worker gets the fleet's whole
      // limits for those (its own count is part of the fleet's). Cost and tokens: what the fleet has left,
      // plus what this story's run already spent (the worker counts its own run's spending against it),
      // which is also what caps a single agent run (Claude Code's --max-budget-usd).
      budgets: {
        maxIterations: limits.maxIterations,
        maxTimeMs: limits.maxTimeMs,
        maxCostUsd:
          limits.maxCostUsd !== undefined
            ? Math.max(0.000001, limits.maxCostUsd - state.spent.costUsd + story.runCostUsd)
            : undefined,
        maxTokens:
          limits.maxTokens !== undefined
            ? Math.max(1, limits.maxTokens - state.spent.tokens + story.runTokens)
            : undefined,
      },
      logFile,
      env: { ...ctx.env, [GATE_SCOPE_ENV]: state.fleetId },
      onSpawn: (pid) => {
        worker.pid = pid;
        const record = state.running.find((w) => w.slot === worker.slot);
        if (record) record.pid = pid;
        void ledger.save();
        // A stop that came while it was starting.
        if (ctx.signal.aborted) signalProcess(pid, 'SIGTERM');
        else if (ledger.stopping) signalProcess(pid, 'SIGINT');
      },
      onEvent: (event) => this.onEvent(worker, event),
      onPermit: (request, answer) => {
        // Its last iteration's events may still be in the pipe: answer once they are read.
        if (worker.finishedIterations < request.after) worker.pendingPermit = () => answer(this.permit(worker));
        else answer(this.permit(worker));
      },
    });
  }

  private onEvent(worker: Active, event: LoopEventWithTime): void {
    const { emit } = this.ctx;
    const tell = () =>
      emit({ type: 'worker.event', slot: worker.slot, story: worker.story, attempt: worker.attempt, event });
    if (foldWorkerEvent(this.ledger.state, worker, event)) {
      // `star-loop status` reads the file: every change of phase is written at once.
      void this.ledger.save();
      if (event.type === 'iteration.finished') {
        const pending = worker.pendingPermit;
        worker.pendingPermit = undefined;
        pending?.();
      }
    }
    tell();
  }

  /** The fleet's answer to a worker's request to start an iteration (src/fleet/decide-fleet.ts decides). */
  private permit(worker: Active): PermitAnswer {
    const { ledger } = this;
    const { state } = ledger;
    const others = [...this.active.values()].filter((w) => w !== worker && w.inIteration);
    const stopping = ledger.stopping;
    const answer = decidePermit({
      stopping: stopping ? ({ reason: 'stopped', detail: stopping.detail } satisfies FleetDenial) : undefined,
      limits: state.limits,
      spent: state.spent,
      unverified: others.filter((w) => !w.verifierStarted).length,
      inflight: others.length,
      verify: this.ctx.options.verify !== 'off',
      activeMs: ledger.activeMs(),
    });
    if (answer.granted) {
      state.spent.iterations += 1;
      // Under way from now on, for the next permit of any worker (its own event may come later).
      worker.inIteration = true;
      worker.verifierStarted = false;
    } else if (answer.reason !== 'stopped') ledger.stop(answer.reason, answer.detail);
    void ledger.save();
    return answer;
  }
}
