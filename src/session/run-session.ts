import { join } from 'node:path';
import { limitsOf } from '../config/options.js';
import { ExitCode, StarError } from '../errors.js';
import { findDependencyDirs, fingerprintBins } from '../gates/dependencies.js';
import { GATE_SCOPE_ENV, GateCache } from '../gates/gate-cache.js';
import type { Git } from '../git/git.js';
import { createEventLogger } from '../log/create-logger.js';
import { decideStopStatus } from '../loop/decide-next-step.js';
import { createEmitter, type LoopEvent } from '../loop/events.js';
import type { LoopContext } from '../loop/loop-context.js';
import { recoverInterrupted } from '../loop/recover-interrupted.js';
import { runLoop } from '../loop/run-loop.js';
import { loadTemplates } from '../prompt/load-templates.js';
import { refuseToStart } from '../recon/refusals.js';
import type { Recon } from '../recon/run-recon.js';
import { chooseOutputMode } from '../report/output-mode.js';
import { terminalSubscriber } from '../report/terminal-output.js';
import { pushBlockingEnv, writePushBlockingHooks } from '../safety/block-push.js';
import { EvidenceStore } from '../safety/evidence-store.js';
import { createRedactor } from '../safety/redactor.js';
import type { Finding } from '../state/finding-schema.js';
import { resumeOrCreateState } from '../state/resume-or-create-state.js';
import type { StarPaths } from '../state/star-paths.js';
import type { RunState } from '../state/state-schema.js';
import { readState, writeState } from '../state/state-store.js';
import { exitCodeFor, type StopReason } from '../state/stop-reasons.js';
import { diskProblem } from '../util/disk-error.js';
import { buildLoopContext } from './build-loop-context.js';
import { finishRun } from './finish-run.js';
import { openRun } from './open-run.js';
import { openSandbox } from './open-sandbox.js';
import type { StopSignals } from './stop-signals.js';

/** Agents and gates start from star-loop's environment, with git's push blocked unless --allow-push. */
async function agentEnvironment(allowPush: boolean, git: Git, paths: StarPaths): Promise<NodeJS.ProcessEnv> {
  if (allowPush) return process.env;
  const hooks = join(paths.dir, 'hooks');
  await writePushBlockingHooks(hooks, await git.hooksDir());
  return { ...process.env, ...pushBlockingEnv(process.env, hooks) };
}

/** The stop reason of an error star-loop named itself (bad input, a refusal, a safety stop). */
const STOP_OF: Partial<Record<ExitCode, StopReason>> = {
  [ExitCode.Usage]: 'invalid-input',
  [ExitCode.NeedsHuman]: 'refused',
  [ExitCode.Safety]: 'safety',
};

/**
 * The loop; an error pauses the run (resumable after the fix) instead of losing it: one star-loop names
 * (bad input mid-run, a refusal) stops with its own exit code and fix; any other is an internal error.
 */
async function loopUntilStop(ctx: LoopContext, state: RunState): Promise<void> {
  try {
    await runLoop(ctx, state);
  } catch (error) {
    const named = error instanceof StarError ? STOP_OF[error.exitCode] : undefined;
    const disk = diskProblem(error);
    state.status = 'paused';
    state.endedAt = new Date().toISOString();
    if (named && error instanceof StarError) {
      state.stopReason = named;
      state.stopDetail = `${error.message}${error.hint ? ` — fix: ${error.hint}` : ''}`;
      state.exitCode = error.exitCode;
    } else {
      state.stopReason = 'error';
      state.stopDetail = disk ? `${disk.what} — fix: ${disk.fix}` : `internal error: ${(error as Error).message}`;
      state.exitCode = exitCodeFor('error');
    }
    // Best effort: on a full disk the state may not be written; the lock is released and the stop said anyway.
    await writeState(ctx.paths.state, state).catch(() => undefined);
    if (named || disk) return;
    const why = ctx.options.debug ? `\n${(error as Error).stack ?? ''}` : ' (run with --debug for the stack trace)';
    ctx.emit({ type: 'warning', message: `${state.stopDetail}${why}` });
  }
}

/** The interrupted iteration's agent crossed a boundary: a safety stop, as after any agent run. */
async function stopOnRecovery(ctx: LoopContext, state: RunState, violations: readonly Finding[]): Promise<void> {
  const n = state.records.at(-1)?.n;
  state.stopReason = 'safety';
  state.status = decideStopStatus('safety', { fromStall: false, pause: false });
  state.stopDetail =
    `safety boundary crossed in interrupted iteration ${n} (found on resume, before anything was committed): ` +
    violations.map((v) => v.detail).join('; ');
  state.exitCode = exitCodeFor('safety');
  state.endedAt = new Date().toISOString();
  await writeState(ctx.paths.state, state).catch(() => undefined);
}

/**
 * One `star-loop run` after recon: refusals, lock and workspace, the run state (a paused or interrupted run
 * continued), the loop with its subscribers and stop signals, then the report and --on-finish.
 */
export async function runSession(recon: Recon, rawArgs: string[], signals: StopSignals): Promise<ExitCode> {
  const { plan } = recon;
  refuseToStart({
    head: plan.git.head,
    agent: recon.adapter,
    agentCmd: recon.options.agentCmd,
    agentFound: plan.agent.found,
    sandbox: recon.sandbox,
  });
  const opened = await openRun(recon);
  try {
    const { options, git, paths } = opened;
    // Independent reads and the hooks' writing, side by side.
    const [env, previous, gitDir, dependencyDirs, templates] = await Promise.all([
      agentEnvironment(options.allowPush, git, paths),
      readState(paths.state),
      git.gitCommonDir(),
      findDependencyDirs(options.root),
      loadTemplates(),
    ]);
    const { state, continued } = resumeOrCreateState(previous, options.mode, plan.target);
    state.branch = opened.branch;
    state.worktree = opened.worktree;
    state.limits = limitsOf(options);
    if (rawArgs.length > 0) state.argv = rawArgs;

    const logger = createEventLogger(paths.log);
    const redactor = createRedactor(process.env);
    const terminal = terminalSubscriber(
      chooseOutputMode({ json: options.json, isTTY: Boolean(process.stdout.isTTY), env: process.env }),
    );
    const emit = createEmitter<LoopEvent>(
      [logger.log, terminal.onEvent],
      redactor.longest > 0 ? redactor.redact : undefined,
    );
    signals.onFirstInterrupt(() =>
      emit({
        type: 'warning',
        message: 'stopping after this iteration (Ctrl-C again, or `star-loop stop --now`, to stop at once)',
      }),
    );
    const evidence = new EvidenceStore(git, gitDir);
    const sandbox = openSandbox({
      dependencyDirs,
      decision: recon.sandbox,
      support: recon.sandboxSupport,
      options,
      gitDir,
      keepReadOnly: [evidence.dir],
    });
    evidence.deferred = Boolean(sandbox);
    const ctx = buildLoopContext({
      recon,
      opened,
      state,
      env,
      emit,
      redactor,
      stop: signals.now.signal,
      gentle: signals.gentle,
      templates,
      gitDir,
      evidence,
      sandbox,
      dependencyDirs,
      trustedBins: sandbox ? undefined : await fingerprintBins(options.root, dependencyDirs),
      // A fleet's worker shares the fleet's results: its merges reuse what its stories' runs checked.
      gateCache: new GateCache(join(gitDir, 'star-loop', 'gate-cache'), process.env[GATE_SCOPE_ENV] ?? state.runId),
      agentLine: options.verbose && !options.json ? (line) => terminal.agentLine(redactor.redact(line)) : undefined,
    });
    emit({ type: 'run.started', runId: state.runId, continued, plan });
    // A runner that died mid-iteration: its agent is ended and checked like any agent before anything is
    // committed; a boundary it crossed stops the run here (exit 5), with the evidence kept.
    const recovered = continued ? await recoverInterrupted(ctx, state) : { notes: [], violations: [] };
    for (const note of [...opened.lockWarnings, ...recovered.notes, ...recon.agentNotes])
      emit({ type: 'warning', message: note });
    for (const message of recon.sandbox.warnings) emit({ type: 'warning', message });
    if (options.verify === 'off') {
      emit({
        type: 'warning',
        message: "VERIFICATION IS OFF (--verify off): every claim will be accepted on the agent's word alone",
      });
    }
    if (recovered.violations.length > 0) {
      for (const v of recovered.violations) emit({ type: 'warning', message: `SAFETY: ${v.detail}` });
      await stopOnRecovery(ctx, state, recovered.violations);
    } else await loopUntilStop(ctx, state);
    const exitCode = await finishRun(ctx, state);
    logger.close();
    terminal.close();
    git.close();
    return exitCode as ExitCode;
  } finally {
    await opened.release();
  }
}
