import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { limitsOf } from '../config/options.js';
import { type ExitCode, RefusedError } from '../errors.js';
import { fleetReadyStories } from '../fleet/decide-fleet.js';
import type { FleetEvent } from '../fleet/fleet-events.js';
import { newFleetState, workerPassArgs } from '../fleet/fleet-plan.js';
import type { FleetFlags, FleetRecon } from '../fleet/fleet-recon.js';
import { runFleet } from '../fleet/run-fleet.js';
import { findDependencyDirs } from '../gates/dependencies.js';
import type { Gate } from '../gates/gate.js';
import { GateCache } from '../gates/gate-cache.js';
import { runBaseline } from '../gates/run-baseline.js';
import { createEmitter } from '../loop/events.js';
import { loadPrd } from '../prd/load-prd.js';
import { refuseToStart } from '../recon/refusals.js';
import { buildFleetReport, renderFleetReportMarkdown } from '../report/fleet-report.js';
import { fleetAnnotations } from '../report/github.js';
import { publishReport } from '../report/publish-report.js';
import { fleetTerminalSubscriber } from '../report/render-fleet-line.js';
import { applyWorkspace } from '../safety/apply-workspace.js';
import { createRedactor, redactDeep } from '../safety/redactor.js';
import { parseEndpoints } from '../sandbox/endpoint.js';
import type { FleetState } from '../state/fleet-state-schema.js';
import { acquireLock } from '../state/lock.js';
import { prepareStarDir } from '../state/prepare-star-dir.js';
import { writeState } from '../state/state-store.js';
import type { StopReason } from '../state/stop-reasons.js';
import { exitCodeFor } from '../state/stop-reasons.js';
import { openSandbox } from './open-sandbox.js';
import { runOnFinish } from './run-on-finish.js';
import type { StopSignals } from './stop-signals.js';

type Emit = (event: FleetEvent) => void;

/**
 * The integration branch checked out in the repository root (the fleet merges there), with prd.json
 * committed on it (every worker's worktree is made from it). Called with the lock held.
 */
async function openFleet(recon: FleetRecon): Promise<void> {
  const { workspace, git, prdRelative, integration } = recon;
  if (workspace.kind === 'refuse' && workspace.why === 'dirty') {
    // The fleet merges into this checkout: --worktree and --allow-dirty are not its options.
    throw new RefusedError(
      workspace.message,
      'commit them first (`git add -A && git commit -m "wip"`): the fleet merges into this checkout',
    );
  }
  await applyWorkspace(workspace, git, { ...recon.options, worktree: false });
  if ((await git.showFile('HEAD', prdRelative)) === undefined) {
    throw new RefusedError(
      `${prdRelative} is not committed on ${integration}: every worker's worktree is made from that branch`,
      `git add ${prdRelative} && git commit -m "add the PRD", then run again`,
    );
  }
}

/**
 * The fleet's events, to `.star/fleet/log.jsonl` (synchronously: nothing is lost when the fleet is killed) and the
 * terminal.
 */
function fleetEmitter(
  logFile: string,
  json: boolean,
  redactor: { redact: (text: string) => string; longest: number },
): Emit {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = (event: FleetEvent & { time: string }) => appendFileSync(logFile, `${JSON.stringify(event)}\n`);
  return createEmitter<FleetEvent>(
    [log, fleetTerminalSubscriber(json)],
    redactor.longest > 0 ? redactor.redact : undefined,
  );
}

/** The paused fleet continued, or a new one; either way with this invocation's workers and limits. */
function fleetStateToRun(recon: FleetRecon, rawArgs: string[]): FleetState {
  const { previous, options } = recon;
  const state =
    recon.start.kind === 'continue' && previous
      ? previous
      : newFleetState({ prd: recon.prdRelative, branch: recon.integration, workers: recon.workers, options });
  state.status = 'running';
  state.workers = recon.workers;
  // This invocation's limits (a paused fleet continued with a larger budget gets it).
  state.limits = limitsOf(options);
  state.stopReason = undefined;
  state.stopDetail = undefined;
  state.exitCode = undefined;
  state.endedAt = undefined;
  if (rawArgs.length > 0) state.argv = rawArgs;
  return state;
}

/** The report phase of a fleet: report.md/json, the fleet.finished event, --on-finish. */
async function finishFleet(
  recon: FleetRecon,
  state: FleetState,
  end: { reason: StopReason; detail: string },
  emit: Emit,
) {
  const { options, paths } = recon;
  const exitCode = exitCodeFor(end.reason);
  state.exitCode = exitCode;
  state.endedAt ??= new Date().toISOString();
  await writeState(paths.fleet, state);
  const finalPrd = await loadPrd(recon.prd.file).catch(() => recon.prd);
  const report = redactDeep(buildFleetReport(state, finalPrd.prd), createRedactor(process.env).redact);
  await publishReport(
    paths,
    { json: report, markdown: renderFleetReportMarkdown(report), annotations: () => fleetAnnotations(report) },
    options.json,
  );
  const storyIds = (status: string) => report.stories.filter((s) => s.status === status).map((s) => s.id);
  emit({
    type: 'fleet.finished',
    fleetId: state.fleetId,
    stopReason: end.reason,
    exitCode,
    detail: end.detail,
    merged: storyIds('merged'),
    parked: storyIds('parked'),
    remaining: report.stories.filter((s) => s.status !== 'merged' && s.status !== 'passed before').map((s) => s.id),
    reportFile: relative(process.cwd(), paths.reportMd) || paths.reportMd,
  });
  const finished = {
    command: options.onFinish,
    root: recon.root,
    paths,
    env: process.env,
    runId: state.fleetId,
    exitCode,
  };
  await runOnFinish({ ...finished, stopReason: end.reason }, (message) => emit({ type: 'warning', message }));
  return exitCode;
}

/**
 * One `star-loop fleet` after recon: refusals, the lock (before anything changes, the branch included), the
 * integration branch, the fleet state, the baseline, the queue, workers and merges, then the report.
 */
export async function runFleetSession(
  recon: FleetRecon,
  flags: FleetFlags,
  rawArgs: string[],
  signals: StopSignals,
): Promise<ExitCode> {
  const { options, paths, git } = recon;
  refuseToStart({
    head: recon.gitState.head,
    agent: recon.adapter,
    agentCmd: options.agentCmd,
    agentFound: recon.agentFound,
    sandbox: recon.sandbox,
  });
  await prepareStarDir(paths.dir, 'fleet');
  const lockWarnings: string[] = [];
  const releaseLock = await acquireLock(paths.lock, (message) => lockWarnings.push(message));
  try {
    await openFleet(recon);
    const state = fleetStateToRun(recon, rawArgs);
    await writeState(paths.fleet, state);
    const redactor = createRedactor(process.env);
    const emit = fleetEmitter(join(paths.fleetDir, 'log.jsonl'), options.json, redactor);
    const controller = signals.now;
    const gentle = signals.gentle;
    signals.onFirstInterrupt(() =>
      emit({
        type: 'warning',
        message:
          'stopping: each worker finishes its iteration (Ctrl-C again, or `star-loop stop --now`, to stop at once)',
      }),
    );
    const queue = fleetReadyStories(recon.prd.prd, state);
    emit({
      type: 'fleet.started',
      fleetId: state.fleetId,
      continued: recon.start.kind === 'continue',
      workers: recon.workers,
      branch: recon.integration,
      queue,
    });
    for (const message of [...lockWarnings, ...recon.sandbox.warnings]) emit({ type: 'warning', message });
    // The fleet's own gates (the baseline, every merge) run in the sandbox; each worker opens its own.
    const dependencyDirs = await findDependencyDirs(recon.root);
    const sandbox = openSandbox({
      decision: recon.sandbox,
      support: recon.sandboxSupport,
      options,
      gitDir: await git.gitCommonDir(),
      keepReadOnly: [],
      dependencyDirs,
    });
    const gateHosts = parseEndpoints(options.sandbox.gateHosts);
    const gateCache = new GateCache(join(await git.gitCommonDir(), 'star-loop', 'gate-cache'), state.fleetId);
    const heartbeat = (gate: Gate, elapsedMs: number) =>
      emit({ type: 'gate.running', gate: gate.name, command: gate.command, elapsedMs });
    if (options.verify !== 'off' && !state.baseline) {
      const place = {
        git,
        dependencyRoot: recon.root,
        dependencyDirs,
        sandbox,
        hosts: gateHosts,
        env: process.env,
        timeoutMs: options.gateTimeoutMs,
        signal: controller.signal,
        redactor,
        cache: gateCache,
        heartbeat,
      };
      const head = (await git.head()) ?? 'HEAD';
      state.baseline = await runBaseline(recon.gates, place, head, join(paths.fleetDir, 'baseline.log'));
      await writeState(paths.fleet, state);
    }
    let end: { reason: StopReason; detail: string };
    try {
      end = await runFleet(
        {
          root: recon.root,
          git,
          paths,
          options,
          workers: recon.workers,
          maxReturns: recon.maxReturns,
          gates: recon.gates,
          passArgs: workerPassArgs(flags),
          setup: flags.worktreeSetup,
          sandbox,
          gateHosts,
          gateCache,
          heartbeat,
          env: process.env,
          emit,
          signal: controller.signal,
          stopRequested: gentle.signal,
          redactor,
        },
        state,
      );
    } catch (error) {
      end = { reason: 'error', detail: `internal error: ${(error as Error).message}` };
      state.status = 'paused';
      state.stopReason = end.reason;
      state.stopDetail = end.detail;
      if (options.debug) emit({ type: 'warning', message: (error as Error).stack ?? '' });
    }
    return (await finishFleet(recon, state, end, emit)) as ExitCode;
  } finally {
    await releaseLock();
  }
}
