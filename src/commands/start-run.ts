import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AgentRunContext } from '../agents/agent-run-context.js';
import { getAgentAdapter } from '../agents/registry.js';
import { limitsOf } from '../config/options.js';
import { type ExitCode, RefusedError } from '../errors.js';
import { createEventLogger } from '../log/create-logger.js';
import { exitCodeFor } from '../loop/decide-next-step.js';
import { createEmitter, type LoopEvent } from '../loop/events.js';
import { fleetPermit } from '../loop/fleet-permit.js';
import type { LoopContext } from '../loop/loop-context.js';
import { recoverInterrupted } from '../loop/recover-interrupted.js';
import { remainingWork, runLoop } from '../loop/run-loop.js';
import { loadTemplates } from '../prompt/load-templates.js';
import { buildReport } from '../report/build-report.js';
import { githubAnnotations } from '../report/github.js';
import { chooseOutputMode } from '../report/output-mode.js';
import { renderReportMarkdown } from '../report/render-report-markdown.js';
import { printLine, terminalSubscriber } from '../report/terminal-output.js';
import { writeReport } from '../report/write-report.js';
import { applyWorkspace } from '../safety/apply-workspace.js';
import { pushBlockingEnv, writePushBlockingHooks } from '../safety/block-push.js';
import type { Guard } from '../safety/check-safety.js';
import { createRedactor, redactDeep } from '../safety/redactor.js';
import { runOnFinish } from '../session/run-on-finish.js';
import { onStopSignals } from '../session/stop-signals.js';
import { acquireLock } from '../state/lock.js';
import { resumeOrCreateState } from '../state/resume-or-create-state.js';
import { starPaths } from '../state/star-paths.js';
import { readState, writeState } from '../state/state-store.js';
import type { Recon } from './run.js';

/** The run itself, after recon: refusals, workspace, lock, the loop, the report. */
export async function startRun(recon: Recon, rawArgs: string[]): Promise<ExitCode> {
  const { options: reconOptions, adapter, fallback, git: userGit, plan, gates, agentNotes, workspace } = recon;
  if (!plan.git.head)
    throw new RefusedError(
      'the repository has no commits yet',
      'make a first commit (`git add -A && git commit -m "initial commit"`), then run again',
    );
  if (!plan.agent.found) {
    throw new RefusedError(
      `agent "${adapter.name}": \`${adapter.executable({ agentCmd: reconOptions.agentCmd })}\` was not found on PATH`,
      'install the agent CLI, or choose another with --agent',
    );
  }

  const lockWarnings: string[] = [];
  const takeLock = async (root: string) => {
    const at = starPaths(root);
    await mkdir(at.runs, { recursive: true });
    // star-loop's state never shows up as a change in the user's repository.
    await writeFile(at.gitignore, '# star-loop state: never committed\n*\n');
    return acquireLock(at.lock, (message) => lockWarnings.push(message));
  };
  // In the user's checkout the lock comes first: a second run here is refused before any branch changes.
  // (A --worktree run's lock is in its worktree, which applyWorkspace makes.)
  const early = workspace.kind === 'here' ? await takeLock(reconOptions.root) : undefined;
  const applied = await applyWorkspace(workspace, userGit, reconOptions).catch(async (error: unknown) => {
    await early?.();
    throw error;
  });
  const { options, git, branch, worktree } = applied;
  git.keepAlive();
  const paths = starPaths(options.root);
  const releaseLock = early ?? (await takeLock(options.root));
  try {
    let env: NodeJS.ProcessEnv = process.env;
    if (!options.allowPush) {
      const hooks = join(paths.dir, 'hooks');
      await writePushBlockingHooks(hooks, await git.hooksDir());
      env = { ...process.env, ...pushBlockingEnv(process.env, hooks) };
    }
    const { state, continued } = resumeOrCreateState(await readState(paths.state), options.mode, plan.target);
    state.branch = branch;
    state.worktree = worktree;
    state.limits = limitsOf(options);
    if (rawArgs.length > 0) state.argv = rawArgs;
    const recovered = continued ? await recoverInterrupted(git, state) : [];

    const logger = createEventLogger(paths.log);
    const redactor = createRedactor(process.env);
    const terminal = terminalSubscriber(chooseOutputMode({ json: options.json, isTTY: Boolean(process.stdout.isTTY), env: process.env }));
    const emit = createEmitter<LoopEvent>([logger.log, terminal.onEvent], redactor.longest > 0 ? redactor.redact : undefined);
    const controller = new AbortController();
    const gentle = new AbortController();
    const removeSignals = onStopSignals(controller, gentle, () =>
      emit({ type: 'warning', message: 'stopping after this iteration (Ctrl-C again, or `star-loop stop --now`, to stop at once)' }),
    );
    const templates = await loadTemplates();
    const agents: AgentRunContext = {
      root: options.root,
      signal: controller.signal,
      stopRequested: gentle.signal,
      redactor,
      idleTimeoutMs: options.idleTimeoutMs,
      maxWaitMs: options.maxWaitMs,
      backoff: options.backoff,
      prices: options.prices,
      state,
      emit,
      agentLine: options.verbose && !options.json ? (line) => terminal.agentLine(redactor.redact(line)) : undefined,
    };
    const guard: Guard = {
      git,
      root: options.root,
      gitDir: await git.gitCommonDir(),
      starDir: paths.dir,
      branch,
      protectedPaths: options.protectedPaths,
      allowPush: options.allowPush,
      promptFile: options.promptFile,
      prdFile: options.prdFile,
    };
    const prdRelative = options.prdFile ? relative(options.root, options.prdFile) : undefined;
    const verifierAdapter = getAgentAdapter(options.verifierAgent);
    const ctx: LoopContext = {
      options,
      plan,
      gates,
      git,
      paths,
      adapter,
      fallback,
      templates,
      agents,
      verify: {
        git,
        root: options.root,
        gates,
        gateTimeoutMs: options.gateTimeoutMs,
        env,
        signal: controller.signal,
        redactor,
        emit,
        prdRelative,
        task: options.task,
        verifier: {
          adapter: verifierAdapter,
          fallback: verifierAdapter === adapter ? fallback : undefined,
          model: options.verifierModel,
          agentCmd: options.agentCmd,
          passEnv: options.passEnv,
          timeoutMs: options.iterationTimeoutMs,
          templates,
          guard,
          verdictFile: join(paths.dir, 'verdict.json'),
          claimFile: paths.claim,
          agents,
        },
      },
      emit,
      signal: controller.signal,
      stopRequested: gentle.signal,
      env,
      redactor,
      guard,
      prdRelative,
      permit: fleetPermit(() => {
        if (gentle.signal.aborted) return;
        gentle.abort();
        emit({ type: 'warning', message: 'the fleet that started this worker is gone: stopping after this iteration' });
      }),
    };
    emit({ type: 'run.started', runId: state.runId, continued, plan });
    for (const note of [...lockWarnings, ...recovered, ...agentNotes]) emit({ type: 'warning', message: note });
    if (options.verify === 'off') {
      emit({ type: 'warning', message: "VERIFICATION IS OFF (--verify off): every claim will be accepted on the agent's word alone" });
    }
    try {
      await runLoop(ctx, state);
    } catch (error) {
      state.status = 'paused';
      state.stopReason = 'error';
      state.stopDetail = `internal error: ${(error as Error).message}`;
      state.exitCode = exitCodeFor('error');
      state.endedAt = new Date().toISOString();
      await writeState(paths.state, state);
      emit({
        type: 'warning',
        message: options.debug
          ? `${state.stopDetail}\n${(error as Error).stack ?? ''}`
          : `${state.stopDetail} (run with --debug for the stack trace)`,
      });
    } finally {
      removeSignals();
    }

    const remaining = await remainingWork(ctx, state).catch(() => ['(unknown: prd.json cannot be read)']);
    const report = buildReport({ state, plan, remaining, peakRssBytes: process.resourceUsage().maxRSS * 1024, verify: options.verify });
    const published = redactDeep(report, redactor.redact);
    await writeReport(paths, published);
    // In a GitHub Actions job: the report joins the job summary, findings become annotations.
    if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${renderReportMarkdown(published)}\n`);
    if (process.env.GITHUB_ACTIONS === 'true' && !options.json) for (const line of githubAnnotations(published)) printLine(line);
    emit({
      type: 'run.finished',
      runId: state.runId,
      stopReason: report.stopReason,
      exitCode: report.exitCode,
      detail: report.detail,
      reportFile: relative(process.cwd(), paths.reportMd) || paths.reportMd,
      iterations: report.iterations,
      accepted: report.accepted.length,
      rejected: report.rejected.length,
      remaining,
    });
    if (options.onFinish) {
      const problem = await runOnFinish({
        command: options.onFinish,
        root: options.root,
        paths,
        env,
        runId: state.runId,
        stopReason: report.stopReason,
        exitCode: report.exitCode,
      });
      if (problem) emit({ type: 'warning', message: problem });
    }
    logger.close();
    terminal.close();
    git.close();
    return report.exitCode as ExitCode;
  } finally {
    await releaseLock();
  }
}
