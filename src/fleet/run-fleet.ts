import { existsSync, readFileSync } from 'node:fs';
import { appendFile, cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RunOptions } from '../config/options.js';
import type { Gate } from '../gates/gate.js';
import { Git } from '../git/git.js';
import type { LoopEventWithTime } from '../loop/events.js';
import type { FleetDenial, PermitAnswer } from '../loop/fleet-permit.js';
import type { Prd } from '../prd/prd-schema.js';
import { readPrdNow } from '../prd/read-prd-passes.js';
import { runProcess, signalProcess } from '../proc/run-process.js';
import { formatFindings } from '../prompt/format-findings.js';
import { worktreeDir } from '../safety/decide-workspace.js';
import type { Finding } from '../state/finding-schema.js';
import { type FleetState, type FleetStory, newFleetStory, type TimelineEntry } from '../state/fleet-state-schema.js';
import { processRuns } from '../state/lock.js';
import { prepareStarDir } from '../state/prepare-star-dir.js';
import type { StarPaths } from '../state/star-paths.js';
import { writeState } from '../state/state-store.js';
import type { StopReason } from '../state/stop-reasons.js';
import { iterationUsage } from '../usage/sum-usage.js';
import {
  decideFleetEnd,
  decidePermit,
  decideReturn,
  decideWorkerOutcome,
  fleetReadyStories,
  nextIdleWait,
  setAsideBranch,
  storyBranch,
  unfinishedStories,
  type WorkerOutcome,
} from './decide-fleet.js';
import type { FleetEvent } from './fleet-events.js';
import { mergeStory } from './merge-story.js';
import { runWorker, type WorkerExit } from './run-worker.js';

export interface FleetContext {
  root: string;
  git: Git;
  paths: StarPaths;
  options: RunOptions;
  workers: number;
  /** Returns (merge conflicts, failures after the merge) and deaths before a story is parked. */
  maxReturns: number;
  gates: readonly Gate[];
  /** `run` flags every worker gets. */
  passArgs: string[];
  env: NodeJS.ProcessEnv;
  emit: (event: FleetEvent) => void;
  /** Stop now: workers end their agents at once. */
  signal: AbortSignal;
  /** Stop gently: workers finish their iteration. */
  stopRequested: AbortSignal;
  redactor: { redact: (text: string) => string; longest: number };
  /** `--worktree-setup`: run in each new worktree before its worker starts (e.g. `npm ci`). */
  setup?: string;
  /** The first wait when no story can start and workers are busy (doubles up to 60 s). */
  idleBackoffMs?: number;
}

interface Active {
  slot: number;
  story: string;
  attempt: number;
  pid?: number;
  inIteration: boolean;
  verifierStarted: boolean;
  /** `iteration.finished` events read from this worker process. */
  finishedIterations: number;
  /** A permit request waiting for those events. */
  pendingPermit?: () => void;
  signalled?: NodeJS.Signals;
}

const FINISHING: ReadonlySet<StopReason> = new Set([
  'complete',
  'parked',
  'max-iterations',
  'max-time',
  'max-cost',
  'max-tokens',
  'cost-unknown',
  'safety',
]);

/** `--worktree-setup CMD` in a new worktree: undefined when it passed, else what went wrong. */
async function runSetup(command: string, cwd: string, logFile: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  await mkdir(dirname(logFile), { recursive: true });
  await appendFile(logFile, `\n===== ${cwd}: ${command}\n`);
  const run = await runProcess({ command: 'sh', args: ['-c', command], cwd, env, logFile, tailBytes: 2000 });
  if (run.exitCode === 0) return undefined;
  return `${run.spawnError ?? (run.timedOut ? 'timed out' : `exit ${run.exitCode ?? run.signal}`)}: ${run.tail.trim().split('\n').slice(-5).join(' ')}`;
}

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

/**
 * The fleet: a dependency-aware queue (prd.json on the integration branch plus `.star/fleet.json`), up to
 * N workers — each `star-loop run --story ID` in a worktree of its own — and exactly one merge at a time
 * into the integration branch. Every change of state is written to `.star/fleet.json` at once, so a fleet
 * killed at any moment continues with `star-loop resume`.
 */
export async function runFleet(ctx: FleetContext, state: FleetState): Promise<{ reason: StopReason; detail: string }> {
  const { paths, options, emit } = ctx;
  const prdFile = join(ctx.root, state.prd);
  const segmentStart = Date.now();
  const activeBase = state.activeMs;
  const activeMs = () => activeBase + (Date.now() - segmentStart);
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    state.activeMs = activeMs();
    state.updatedAt = new Date().toISOString();
    saving = saving.then(() => writeState(paths.fleet, state));
    return saving;
  };
  const at = () => new Date().toISOString();
  const log = (entry: Omit<TimelineEntry, 'at'>) => state.timeline.push({ at: at(), ...entry });

  const active = new Map<number, Active>();
  const ended: Array<{ worker: Active; exit: WorkerExit }> = [];
  const merging: string[] = Object.entries(state.stories)
    .filter(([, s]) => s.status === 'merging')
    .map(([id]) => id);
  let stopping: { reason: StopReason; detail: string } | undefined;
  let nudge: () => void = () => {};
  /** A merge that could not be made (the root left the branch, local changes): retried on resume. */
  let mergeBlocked = false;
  const canMerge = () => !mergeBlocked && !ctx.signal.aborted && stopping?.reason !== 'safety';
  const changed = () => nudge();

  const stopWorkers = (signal: NodeJS.Signals) => {
    for (const worker of active.values()) {
      if (worker.signalled === 'SIGTERM' || worker.signalled === signal) continue;
      worker.signalled = signal;
      signalProcess(worker.pid, signal);
    }
  };
  const stopFleet = (reason: StopReason, detail: string) => {
    stopping ??= { reason, detail };
    stopWorkers('SIGINT');
    changed();
  };
  const onGentle = () => stopFleet('stopped', 'stopped by the user');
  const onNow = () => {
    stopping ??= { reason: 'stopped', detail: 'stopped by the user' };
    stopWorkers('SIGTERM');
    changed();
  };
  ctx.stopRequested.addEventListener('abort', onGentle, { once: true });
  ctx.signal.addEventListener('abort', onNow, { once: true });
  if (ctx.stopRequested.aborted) onGentle();
  if (ctx.signal.aborted) onNow();

  // Workers of a fleet that died: they heard the channel close and stop after their iteration. Wait for them.
  for (const worker of state.running) {
    if (worker.pid && workerStillRuns(worker.pid)) {
      emit({
        type: 'warning',
        message: `waiting for the previous fleet's worker on ${worker.story} (PID ${worker.pid}) to finish its iteration`,
      });
    }
    while (worker.pid && workerStillRuns(worker.pid)) await new Promise((r) => setTimeout(r, 200));
    const story = state.stories[worker.story];
    if (story?.status === 'running') story.status = 'queued';
  }
  state.running = [];
  for (const story of Object.values(state.stories)) if (story.status === 'running') story.status = 'queued';
  await save();

  const readPrd = async (): Promise<Prd> => {
    const now = await readPrdNow(prdFile);
    if (!now.loaded) throw new Error(`${state.prd} on ${state.branch} cannot be read: ${now.error}`);
    return now.loaded.prd;
  };
  const titleOf = (prd: Prd, id: string) => prd.userStories.find((s) => s.id === id)?.title ?? id;

  /** The worker's `.star/` (its run state, logs, report) moves into the fleet's before its worktree goes. */
  const archiveWorkerState = async (story: string, label: string, worktree: string) => {
    const from = join(worktree, '.star');
    if (!existsSync(from)) return;
    const base = join(paths.fleetDir, 'stories', story.replace(/[^\w.-]+/g, '-'), label);
    // Never over an earlier archive (another fleet's attempt of the same story): a new name instead.
    let to = base;
    for (let n = 2; existsSync(to); n++) to = `${base}.${n}`;
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to).catch(async () => {
      await cp(from, to, { recursive: true });
      await rm(from, { recursive: true, force: true });
    });
  };
  /** Removes a story's worktree (git refuses if anything in it is uncommitted: then it stays, and we say so). */
  const retireWorktree = async (id: string, story: FleetStory) => {
    if (!story.worktree) return;
    await archiveWorkerState(id, `attempt-${story.attempt}`, story.worktree);
    try {
      await ctx.git.removeCleanWorktree(story.worktree);
    } catch (error) {
      emit({ type: 'warning', message: `kept the worktree ${story.worktree} of ${id}: ${(error as Error).message.trim()}` });
    }
  };
  const park = async (id: string, story: FleetStory, detail: string) => {
    story.status = 'parked';
    story.detail = detail;
    log({ story: id, attempt: story.attempt, event: 'parked', detail });
    await appendFile(
      paths.pendingForHuman,
      `\n## ${id} (fleet ${state.fleetId}, attempt ${story.attempt})\n\n${detail}\n\nBranch ${story.branch ?? '?'}${story.worktree ? `, worktree ${story.worktree}` : ''}.${story.findings.length ? `\n\n${formatFindings(story.findings)}` : ''}\n`,
    );
    emit({ type: 'story.parked', story: id, attempt: story.attempt, detail });
  };
  /** Back to the queue for a new attempt on a fresh worktree from the integration branch's new HEAD. */
  const returnStory = async (id: string, story: FleetStory, why: 'merge-conflict' | 'failed-after-merge', findings: Finding[]) => {
    story.returns += 1;
    story.findings = findings;
    const detail = findings.map((f) => f.detail).join('; ');
    log({ story: id, attempt: story.attempt, event: why, detail });
    const next = decideReturn(story, 'return', ctx.maxReturns);
    emit({ type: 'story.returned', story: id, attempt: story.attempt, why, detail, next });
    if (next === 'park') return park(id, story, `returned ${story.returns} times by the merge serializer; last: ${detail}`);
    await retireWorktree(id, story);
    if (story.branch) {
      // An earlier fleet may have set aside an attempt of the same number: never over it.
      const base = setAsideBranch(state.branch, id, story.attempt);
      let aside = base;
      for (let n = 2; await ctx.git.branchExists(aside); n++) aside = `${base}.${n}`;
      await ctx.git.renameBranch(story.branch, aside);
      story.setAside.push(aside);
    }
    story.status = 'queued';
    story.attempt += 1;
    story.branch = undefined;
    story.worktree = undefined;
    log({ story: id, attempt: story.attempt, event: 'requeued' });
  };

  const handleEnd = async (worker: Active, exit: WorkerExit) => {
    const id = worker.story;
    const story = state.stories[id] ?? newFleetStory();
    state.running = state.running.filter((w) => w.slot !== worker.slot);
    const outcome: WorkerOutcome = decideWorkerOutcome({ ...exit, fleetStopping: stopping !== undefined });
    const detail = 'detail' in outcome ? outcome.detail : (exit.finished?.detail ?? 'verified');
    emit({
      type: 'worker.finished',
      slot: worker.slot,
      story: id,
      attempt: worker.attempt,
      outcome: outcome.kind,
      exitCode: exit.exitCode,
      detail,
    });
    story.detail = detail;
    switch (outcome.kind) {
      case 'merge':
        story.status = 'merging';
        story.verifiedCommit = story.worktree ? await new Git(story.worktree).head() : undefined;
        log({ story: id, attempt: worker.attempt, slot: worker.slot, event: 'verified' });
        merging.push(id);
        break;
      case 'pause':
        story.status = 'queued';
        log({ story: id, attempt: worker.attempt, slot: worker.slot, event: 'stopped', detail });
        break;
      case 'died': {
        story.deaths += 1;
        log({ story: id, attempt: worker.attempt, slot: worker.slot, event: 'died', detail });
        const next = decideReturn(story, 'death', ctx.maxReturns);
        emit({ type: 'story.returned', story: id, attempt: worker.attempt, why: 'died', detail, next });
        if (next === 'park') await park(id, story, `its worker died ${story.deaths} times; last: ${detail}`);
        else story.status = 'queued';
        break;
      }
      case 'park':
        await park(id, story, detail);
        break;
      case 'stop-fleet':
        story.status = 'queued';
        log({ story: id, attempt: worker.attempt, slot: worker.slot, event: 'stopped', detail });
        stopFleet(outcome.reason, detail);
        break;
    }
    await save();
  };

  const onWorkerEvent = (worker: Active, event: LoopEventWithTime) => {
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
        break;
      case 'gate.finished':
        phase('gates');
        break;
      case 'agent.rate-limited':
        phase('waiting');
        break;
      case 'verifier.started':
        worker.verifierStarted = true;
        state.spent.verifierRuns += 1;
        phase('verifying');
        break;
      case 'iteration.finished': {
        worker.inIteration = false;
        const usage = iterationUsage(event.record);
        state.spent.costUsd += usage.costUsd;
        state.spent.tokens += usage.tokens;
        state.spent.unknownCostRuns += usage.unknownCostRuns;
        state.spent.dearestCostUsd = Math.max(state.spent.dearestCostUsd, usage.costUsd);
        state.spent.dearestTokens = Math.max(state.spent.dearestTokens, usage.tokens);
        if (story) {
          story.iterations += 1;
          story.costUsd += usage.costUsd;
          story.unknownCostRuns += usage.unknownCostRuns;
          story.tokens += usage.tokens;
          story.runCostUsd += usage.costUsd;
          story.runTokens += usage.tokens;
        }
        log({
          story: worker.story,
          attempt: worker.attempt,
          slot: worker.slot,
          event: 'iteration',
          detail: `iteration ${event.record.n}: ${event.record.verdict}`,
        });
        phase('agent');
        break;
      }
      case 'run.finished':
        phase('stopping');
        break;
      default:
        return emit({ type: 'worker.event', slot: worker.slot, story: worker.story, attempt: worker.attempt, event });
    }
    // `star-loop status` reads the file: every change of phase is written at once.
    void save();
    if (event.type === 'iteration.finished') {
      worker.finishedIterations += 1;
      const pending = worker.pendingPermit;
      worker.pendingPermit = undefined;
      pending?.();
    }
    emit({ type: 'worker.event', slot: worker.slot, story: worker.story, attempt: worker.attempt, event });
  };

  const startWorker = async (slot: number, id: string) => {
    state.stories[id] ??= newFleetStory();
    const story = state.stories[id];
    const branch = storyBranch(state.branch, id);
    // A new attempt gets a folder of its own: an earlier attempt's worktree that git would not remove stays.
    const dir = worktreeDir(ctx.root, story.attempt > 1 ? `${branch}--attempt-${story.attempt}` : branch);
    const exists = existsSync(dir);
    const continued = exists && story.worktree === dir;
    if (!continued) {
      story.runCostUsd = 0;
      story.runTokens = 0;
    }
    if (exists && !continued) {
      // Left by an earlier fleet (a parked story, say): its commits stay on the branch; its run starts anew.
      await archiveWorkerState(id, `earlier-${state.fleetId}`, dir);
    }
    if (!exists) {
      try {
        await mkdir(dirname(dir), { recursive: true });
        // A worktree folder someone removed by hand is still registered: git forgets it first.
        await ctx.git.pruneWorktrees();
        await ctx.git.addWorktree(dir, branch, (await ctx.git.head()) ?? 'HEAD');
      } catch (error) {
        await park(id, story, `could not make its worktree ${dir} on ${branch}: ${(error as Error).message.trim()}`);
        await save();
        return;
      }
    }
    story.status = 'running';
    story.branch = branch;
    story.worktree = dir;
    const starDir = join(dir, '.star');
    await prepareStarDir(starDir);
    const setupDone = join(starDir, 'worktree-setup.done');
    if (ctx.setup && !existsSync(setupDone)) {
      const problem = await runSetup(ctx.setup, dir, join(paths.fleetDir, 'setup.log'), ctx.env);
      if (problem) {
        story.status = 'queued';
        stopFleet('refused', `--worktree-setup failed in ${dir}: ${problem}`);
        await save();
        return;
      }
      await writeFile(setupDone, `${new Date().toISOString()}\n`);
    }
    if (story.findings.length > 0) {
      // The next agent hears why the last attempt came back (`.star/hints.md` goes to its next prompt).
      await appendFile(
        join(starDir, 'hints.md'),
        `The fleet's merge serializer sent this story back (attempt ${story.attempt - 1}); this attempt starts from the current ${state.branch}:\n\n${formatFindings(story.findings)}\n`,
      );
      story.findings = [];
    }
    const worker: Active = { slot, story: id, attempt: story.attempt, inIteration: false, verifierStarted: false, finishedIterations: 0 };
    active.set(slot, worker);
    state.running.push({ slot, story: id, attempt: story.attempt, startedAt: at(), phase: 'starting', phaseAt: at() });
    log({ story: id, attempt: story.attempt, slot, event: continued ? 'resumed' : 'started', detail: branch });
    emit({ type: 'worker.started', slot, story: id, attempt: story.attempt, branch, worktree: dir, continued });
    const limits = state.limits;
    const logFile = join(paths.fleetDir, 'workers', `${id.replace(/[^\w.-]+/g, '-')}-attempt-${story.attempt}.log`);
    await mkdir(dirname(logFile), { recursive: true });
    await save();
    const permit = (): PermitAnswer => {
      const others = [...active.values()].filter((w) => w !== worker && w.inIteration);
      const unverified = others.filter((w) => !w.verifierStarted).length;
      const answer = decidePermit({
        stopping: stopping ? ({ reason: 'stopped', detail: stopping.detail } satisfies FleetDenial) : undefined,
        limits,
        spent: state.spent,
        unverified,
        inflight: others.length,
        verify: options.verify !== 'off',
        activeMs: activeMs(),
      });
      if (answer.granted) {
        state.spent.iterations += 1;
        // Under way from now on, for the next permit of any worker (its own event may come later).
        worker.inIteration = true;
        worker.verifierStarted = false;
      } else if (answer.reason !== 'stopped') stopFleet(answer.reason, answer.detail);
      void save();
      return answer;
    };
    runWorker({
      story: id,
      worktree: dir,
      branch,
      prdFile: join(dir, state.prd),
      passArgs: ctx.passArgs,
      // The permits keep iterations and time exact across workers, so the worker gets the fleet's whole
      // limits for those (its own count is part of the fleet's). Cost and tokens: what the fleet has left,
      // plus what this story's run already spent (the worker counts its own run's spending against it),
      // which is also what caps a single agent run (Claude Code's --max-budget-usd).
      budgets: {
        maxIterations: limits.maxIterations,
        maxTimeMs: limits.maxTimeMs,
        maxCostUsd:
          limits.maxCostUsd !== undefined ? Math.max(0.000001, limits.maxCostUsd - state.spent.costUsd + story.runCostUsd) : undefined,
        maxTokens: limits.maxTokens !== undefined ? Math.max(1, limits.maxTokens - state.spent.tokens + story.runTokens) : undefined,
      },
      logFile,
      env: ctx.env,
      onSpawn: (pid) => {
        worker.pid = pid;
        const record = state.running.find((w) => w.slot === slot);
        if (record) record.pid = pid;
        void save();
        // A stop that came while it was starting.
        if (ctx.signal.aborted) signalProcess(pid, 'SIGTERM');
        else if (stopping) signalProcess(pid, 'SIGINT');
      },
      onEvent: (event) => onWorkerEvent(worker, event),
      onPermit: (request, answer) => {
        // Its last iteration's events may still be in the pipe: answer once they are read.
        if (worker.finishedIterations < request.after) worker.pendingPermit = () => answer(permit());
        else answer(permit());
      },
    }).then(
      (exit) => {
        ended.push({ worker, exit });
        changed();
      },
      (error: unknown) => {
        ended.push({ worker, exit: { stderrTail: `could not run the worker: ${(error as Error).message}` } });
        changed();
      },
    );
  };

  const mergeOne = async (id: string, prd: Prd) => {
    const story = state.stories[id];
    if (!story?.worktree || !story.branch) {
      merging.splice(merging.indexOf(id), 1);
      if (story) story.status = 'queued';
      return;
    }
    emit({ type: 'merge.started', story: id, attempt: story.attempt });
    const result = await mergeStory({
      root: ctx.git,
      tree: new Git(story.worktree),
      integration: state.branch,
      storyBranch: story.branch,
      story: id,
      title: titleOf(prd, id),
      attempt: story.attempt,
      prd: state.prd,
      gates: ctx.gates,
      baseline: state.baseline?.gates ?? [],
      gateTimeoutMs: options.gateTimeoutMs,
      workDir: paths.fleetDir,
      logFile: join(paths.fleetDir, 'merge-gates.log'),
      env: ctx.env,
      signal: ctx.signal,
      redactor: ctx.redactor,
    });
    if (result.kind === 'blocked') {
      // Nothing merged, nothing wrong with the story: the fleet pauses and `resume` tries again.
      mergeBlocked = true;
      stopFleet('refused', result.detail);
      return 'blocked';
    }
    merging.splice(merging.indexOf(id), 1);
    if (result.kind === 'merged') {
      story.status = 'merged';
      story.mergeCommit = result.commit;
      state.merges.push({ story: id, commit: result.commit, at: at(), attempt: story.attempt });
      log({ story: id, attempt: story.attempt, event: 'merged', detail: result.commit });
      emit({ type: 'story.merged', story: id, attempt: story.attempt, commit: result.commit, order: state.merges.length });
      await retireWorktree(id, story);
      story.worktree = undefined;
    } else {
      await returnStory(id, story, result.kind === 'conflict' ? 'merge-conflict' : result.kind, result.findings);
    }
    await save();
    return result.kind;
  };

  let backoff = ctx.idleBackoffMs ?? 1000;
  for (;;) {
    while (ended.length > 0) {
      const next = ended.shift();
      if (next) {
        active.delete(next.worker.slot);
        await handleEnd(next.worker, next.exit);
      }
    }
    // One merge at a time, in the order the stories were verified; none while stopping at once.
    while (merging.length > 0 && canMerge()) {
      const id = merging[0];
      if (!id || (await mergeOne(id, await readPrd())) === 'blocked') break;
    }
    const fresh = await readPrd();
    const ready = fleetReadyStories(fresh, state).filter((id) => ![...active.values()].some((w) => w.story === id));
    let started = 0;
    if (!stopping) {
      for (let slot = 1; slot <= ctx.workers && ready.length > 0; slot++) {
        if (active.has(slot)) continue;
        const id = ready.shift();
        if (id) {
          await startWorker(slot, id);
          started += 1;
        }
      }
    }
    if (active.size === 0 && ended.length === 0 && !(merging.length > 0 && canMerge())) {
      if (stopping || ready.length === 0) break;
    }
    if (started > 0) backoff = nextIdleWait(backoff, true, ctx.idleBackoffMs ?? 1000);
    // Wait for a worker to end, or re-read the queue after a backoff that grows while nothing can start.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, backoff);
      nudge = () => {
        clearTimeout(timer);
        resolve();
      };
      if (ended.length > 0 || (merging.length > 0 && canMerge())) nudge();
    });
    nudge = () => {};
    if (started === 0 && ended.length === 0) backoff = nextIdleWait(backoff, false, ctx.idleBackoffMs ?? 1000);
  }
  ctx.stopRequested.removeEventListener('abort', onGentle);
  ctx.signal.removeEventListener('abort', onNow);

  const prd = await readPrd();
  const end = decideFleetEnd({
    stopping,
    unfinished: unfinishedStories(prd, state),
    parked: Object.entries(state.stories)
      .filter(([, s]) => s.status === 'parked')
      .map(([id]) => id),
  });
  state.status = FINISHING.has(end.reason) ? 'finished' : 'paused';
  state.stopReason = end.reason;
  state.stopDetail = end.detail;
  state.endedAt = at();
  await save();
  return end;
}
