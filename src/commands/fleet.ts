import { appendFileSync, mkdirSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { getAgentAdapter } from '../agents/registry.js';
import { loadConfig } from '../config/load-config.js';
import { type RunFlags, resolveRunOptions } from '../config/resolve-options.js';
import { ExitCode, InputError, RefusedError } from '../errors.js';
import { fleetReadyStories } from '../fleet/decide-fleet.js';
import type { FleetEvent } from '../fleet/fleet-events.js';
import { buildFleetPlan, decideFleetStart, newFleetState, renderFleetPlan, workerPassArgs } from '../fleet/fleet-plan.js';
import { runFleet } from '../fleet/run-fleet.js';
import { discoverGates } from '../gates/discover-gates.js';
import { runBaseline } from '../gates/run-baseline.js';
import { Git } from '../git/git.js';
import { readGitState } from '../git/read-git-state.js';
import { exitCodeFor } from '../loop/decide-next-step.js';
import { createEmitter } from '../loop/events.js';
import { loadPrd } from '../prd/load-prd.js';
import { findExecutable } from '../proc/find-executable.js';
import { buildFleetReport, renderFleetReportMarkdown } from '../report/fleet-report.js';
import { fleetAnnotations } from '../report/github.js';
import { renderFleetLine } from '../report/render-fleet-line.js';
import { clock, printLine } from '../report/terminal-output.js';
import { applyWorkspace } from '../safety/apply-workspace.js';
import { decideWorkspace } from '../safety/decide-workspace.js';
import { createRedactor, redactDeep } from '../safety/redactor.js';
import { runOnFinish } from '../session/run-on-finish.js';
import { onStopSignals } from '../session/stop-signals.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { FLEET_SCHEMA_VERSION, fleetStateSchema } from '../state/fleet-state-schema.js';
import { acquireLock } from '../state/lock.js';
import { starPaths } from '../state/star-paths.js';
import type { StopReason } from '../state/state-schema.js';
import { readStateFile, writeState } from '../state/state-store.js';
import { uncoveredCostBudget } from '../usage/check-budgets.js';

export interface FleetFlags extends RunFlags {
  workers?: string;
  maxReturns?: string;
  worktreeSetup?: string;
}

function count(value: string | undefined, fallback: number, field: string, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new InputError(`${field}: expected a whole number from 1 to ${max}, got "${value}"`);
  return n;
}

/**
 * `star-loop fleet`: recon (the same checks as `run`, on the integration branch), then the fleet's queue,
 * workers and merge serializer (src/fleet/run-fleet.ts), then the report.
 */
export async function fleetCommand(flags: FleetFlags, rawArgs: string[]): Promise<ExitCode> {
  const cwd = process.cwd();
  const root = await Git.topLevel(cwd);
  if (!root) throw new InputError(`${cwd} is not inside a git repository`, 'run star-loop inside your project');
  const workers = count(flags.workers, 2, '--workers', 16);
  const maxReturns = count(flags.maxReturns, 2, '--max-returns', 20);
  const { config } = await loadConfig(root);
  const options = await resolveRunOptions({ cwd, root, taskText: '', flags: { ...flags, prd: flags.prd ?? 'prd.json' }, config });
  if (!options.prdFile) throw new InputError('star-loop fleet works on a prd.json', 'pass --prd prd.json');
  const prd = await loadPrd(options.prdFile);
  const integration = options.branch ?? prd.prd.branchName;
  if (!integration) {
    throw new InputError(
      `${relative(cwd, options.prdFile) || options.prdFile}: branchName is missing: the fleet merges every story into that branch`,
      'set "branchName" in prd.json (e.g. "ralph/feature"), or pass --branch NAME',
    );
  }
  const git = new Git(root);
  const paths = starPaths(root);
  const prdRelative = relative(root, options.prdFile);
  const adapter = getAgentAdapter(options.agent);
  const fallback = options.fallbackAgent ? getAgentAdapter(options.fallbackAgent) : undefined;
  const uncovered = uncoveredCostBudget(options, [adapter, getAgentAdapter(options.verifierAgent), ...(fallback ? [fallback] : [])]);
  if (uncovered)
    throw new InputError(uncovered, 'also give --max-time (it bounds what cost cannot), or use an agent that reports its cost');
  const [gitState, gates, executable, previous] = await Promise.all([
    readGitState(git),
    discoverGates(root, options.gates),
    findExecutable(adapter.executable({ agentCmd: options.agentCmd })),
    readStateFile(paths.fleet, fleetStateSchema, FLEET_SCHEMA_VERSION),
  ]);
  const workspace = decideWorkspace({
    options: { ...options, worktree: false },
    git: gitState,
    target: integration,
    targetExists: await git.branchExists(integration),
    worktreeExists: false,
  });
  const start = decideFleetStart({ previous, prd: prdRelative, branch: integration });
  if (options.dryRun) {
    const plan = buildFleetPlan({
      prd: prd.prd,
      prdRelative,
      integration,
      workers,
      maxReturns,
      workspace,
      gates,
      agent: adapter.name,
      found: Boolean(executable),
      start,
    });
    printLine(options.json ? JSON.stringify(plan) : renderFleetPlan(plan));
    return ExitCode.Complete;
  }
  if (!executable) {
    throw new RefusedError(
      `agent "${adapter.name}": \`${adapter.executable({ agentCmd: options.agentCmd })}\` was not found on PATH`,
      'install the agent CLI, or choose another with --agent',
    );
  }
  if (!gitState.head) throw new RefusedError('the repository has no commits yet', 'make a first commit, then run again');

  // The lock first: a second fleet (or run) here must be refused before anything changes, the branch included.
  await mkdir(paths.fleetDir, { recursive: true });
  await writeFile(paths.gitignore, '# star-loop state: never committed\n*\n');
  const lockWarnings: string[] = [];
  const releaseLock = await acquireLock(paths.lock, (message) => lockWarnings.push(message));
  try {
    if (workspace.kind === 'refuse' && workspace.why === 'dirty') {
      // The fleet merges into this checkout: --worktree and --allow-dirty are not its options.
      throw new RefusedError(
        workspace.message,
        'commit them first (`git add -A && git commit -m "wip"`): the fleet merges into this checkout',
      );
    }
    await applyWorkspace(workspace, git, { ...options, worktree: false });
    if ((await git.showFile('HEAD', prdRelative)) === undefined) {
      throw new RefusedError(
        `${prdRelative} is not committed on ${integration}: every worker's worktree is made from that branch`,
        `git add ${prdRelative} && git commit -m "add the PRD", then run again`,
      );
    }
    const state =
      start.kind === 'continue' && previous ? previous : newFleetState({ prd: prdRelative, branch: integration, workers, options });
    state.status = 'running';
    state.workers = workers;
    // This invocation's limits (a paused fleet continued with a larger budget gets it).
    state.limits = {
      maxIterations: options.maxIterations,
      maxTimeMs: options.maxTimeMs,
      maxCostUsd: options.maxCostUsd,
      maxTokens: options.maxTokens,
    };
    state.stopReason = undefined;
    state.stopDetail = undefined;
    state.exitCode = undefined;
    state.endedAt = undefined;
    if (rawArgs.length > 0) state.argv = rawArgs;
    await writeState(paths.fleet, state);

    const redactor = createRedactor(process.env);
    const logFile = join(paths.fleetDir, 'log.jsonl');
    mkdirSync(dirname(logFile), { recursive: true });
    const emit = createEmitter<FleetEvent>(
      [
        // Synchronous: nothing is lost when the fleet is killed.
        (event) => appendFileSync(logFile, `${JSON.stringify(event)}\n`),
        (event) => {
          if (options.json) return printLine(JSON.stringify(event));
          const line = renderFleetLine(event);
          if (line !== undefined) for (const l of line.replace(/^\n/, '').split('\n')) printLine(`${clock(event.time)} ${l}`);
        },
      ],
      redactor.longest > 0 ? redactor.redact : undefined,
    );
    const controller = new AbortController();
    const gentle = new AbortController();
    const removeSignals = onStopSignals(controller, gentle, () =>
      emit({
        type: 'warning',
        message: 'stopping: each worker finishes its iteration (Ctrl-C again, or `star-loop stop --now`, to stop at once)',
      }),
    );
    emit({
      type: 'fleet.started',
      fleetId: state.fleetId,
      continued: start.kind === 'continue',
      workers,
      branch: integration,
      queue: fleetReadyStories(prd.prd, state),
    });
    for (const message of lockWarnings) emit({ type: 'warning', message });
    if (options.verify !== 'off' && !state.baseline) {
      state.baseline = await runBaseline(git, gates, {
        root,
        logFile: join(paths.fleetDir, 'baseline.log'),
        timeoutMs: options.gateTimeoutMs,
        env: process.env,
        redactor,
      });
      await writeState(paths.fleet, state);
    }
    let end: { reason: StopReason; detail: string };
    try {
      end = await runFleet(
        {
          root,
          git,
          paths,
          options,
          workers,
          maxReturns,
          gates,
          passArgs: workerPassArgs(flags),
          setup: flags.worktreeSetup,
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
    } finally {
      removeSignals();
    }
    const exitCode = exitCodeFor(end.reason);
    state.exitCode = exitCode;
    state.endedAt ??= new Date().toISOString();
    await writeState(paths.fleet, state);

    const finalPrd = await loadPrd(options.prdFile).catch(() => prd);
    const report = redactDeep(buildFleetReport(state, finalPrd.prd), redactor.redact);
    const markdown = renderFleetReportMarkdown(report);
    await writeFileAtomic(paths.reportJson, `${JSON.stringify(report, null, 2)}\n`);
    await writeFileAtomic(paths.reportMd, markdown);
    if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
    if (process.env.GITHUB_ACTIONS === 'true' && !options.json) for (const line of fleetAnnotations(report)) printLine(line);
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
      reportFile: relative(cwd, paths.reportMd) || paths.reportMd,
    });
    if (options.onFinish) {
      const problem = await runOnFinish({
        command: options.onFinish,
        root,
        paths,
        env: process.env,
        runId: state.fleetId,
        stopReason: end.reason,
        exitCode,
      });
      if (problem) emit({ type: 'warning', message: problem });
    }
    return exitCode;
  } finally {
    await releaseLock();
  }
}
