import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { openAgentBox } from '../agents/agent-box.js';
import type { AgentRun } from '../agents/run-agent-waiting.js';
import { runAgentWaiting } from '../agents/run-agent-waiting.js';
import type { RunOptions } from '../config/options.js';
import { type GuardSnapshot, guardSnapshot } from '../safety/check-safety.js';
import { refreshFingerprint } from '../safety/fingerprints.js';
import { guardFile, writeGuardFile } from '../safety/guard-file.js';
import { protectedFolders } from '../safety/protected-files.js';
import type { IterationRecord, RunState } from '../state/state-schema.js';
import { remainingBudget } from '../usage/check-budgets.js';
import { formatDuration } from '../util/parse-duration.js';
import type { IterationStart } from './begin-iteration.js';
import type { LoopContext } from './loop-context.js';
import { timeLeft } from './time-left.js';

/**
 * The implementer's sandbox, when the run has one: the work tree writable but its protected files and
 * folders and the prompt file, and a scratch `.star` with this iteration's prompt, the plan and the journal.
 */
async function implementerBox(ctx: LoopContext, runDir: string, protectedFiles: string[]) {
  const { sandbox, options, paths } = ctx;
  if (!sandbox) return undefined;
  const promptFile = options.promptFile ? relative(options.root, options.promptFile) : undefined;
  const readOnly = [
    ...protectedFiles,
    ...protectedFolders(options.protectedPaths).filter((d) => existsSync(join(options.root, d))),
    ...(promptFile && !promptFile.startsWith('..') && !isAbsolute(promptFile) ? [promptFile] : []),
  ];
  const iterationDir = relative(paths.dir, runDir);
  return openAgentBox({
    sandbox,
    adapters: [ctx.adapter, ctx.fallback],
    env: ctx.env,
    starDir: paths.dir,
    files: [join(iterationDir, 'prompt.md'), 'plan.md', 'journal.md', 'pending_for_human.md'],
    readOnly,
  });
}

/** The implementer's run, and what the guard saw just before it. */
export interface ImplementerRun {
  run: AgentRun;
  /** The agent's part of the iteration record (the hazard and a verifier's rate limit are added later). */
  agent: IterationRecord['agent'];
  failed: boolean;
  guardBefore: GuardSnapshot;
}

/** Why an agent run failed, in words, or undefined when it did not (pure). */
export function agentErrorOf(
  run: AgentRun,
  options: Pick<RunOptions, 'maxWaitMs' | 'idleTimeoutMs'>,
): string | undefined {
  const { proc, output } = run;
  if (proc.spawnError) return proc.spawnError;
  if (run.gaveUp) {
    const how =
      run.gaveUp.reason === 'stopped'
        ? 'stopped while waiting out'
        : `still limited after --max-wait ${formatDuration(options.maxWaitMs)}:`;
    return `${how} ${run.gaveUp.signal.detail}`;
  }
  if (proc.idle) return `idle: no output for ${formatDuration(options.idleTimeoutMs ?? 0)}`;
  if (proc.timedOut) return 'timed out';
  if (output.isError) return output.errorMessage;
  return proc.exitCode ? `exit code ${proc.exitCode}` : undefined;
}

/**
 * A fresh implementer agent with the iteration's prompt, in its own process group, bounded by the iteration
 * timeout and what is left of --max-time; rate limits are waited out (or the fallback runs).
 */
export async function runImplementer(
  ctx: LoopContext,
  state: RunState,
  start: IterationStart,
  save: () => Promise<void>,
): Promise<ImplementerRun> {
  const { options, paths } = ctx;
  const { n, runDir } = start;
  const guardBefore = await guardSnapshot(ctx.guard);
  // Kept outside the repository: a runner killed during this run is checked against it on resume.
  await writeGuardFile(guardFile(ctx.evidence.dir, state.runId, n), guardBefore);
  // star-loop's own state writes while the agent runs are not the agent's doing.
  const saveOwn = async () => {
    await save();
    await refreshFingerprint(guardBefore.fingerprints, paths.state);
  };
  const budget = remainingBudget(options, state.records);
  const box = await implementerBox(ctx, runDir, [...guardBefore.protectedFiles.keys()]);
  const run = await runAgentWaiting(ctx.agents, {
    iteration: n,
    role: 'implementer',
    primary: ctx.adapter,
    fallback: ctx.fallback,
    invocation: (adapter) =>
      adapter.invocation({
        root: options.root,
        prompt: start.prompt,
        iteration: n,
        runDir,
        claimFile: paths.claim,
        storyId: start.story?.id,
        model: adapter === ctx.adapter ? options.model : undefined,
        agentCmd: options.agentCmd,
        role: 'implementer',
        baseEnv: ctx.env,
        passEnv: options.passEnv,
        promptFile: join(runDir, 'prompt.md'),
        budget,
      }),
    logFile: (attempt) => join(runDir, attempt === 1 ? 'agent.log' : `agent.${attempt}.log`),
    timeoutMs: Math.min(options.iterationTimeoutMs, Math.max(1000, timeLeft(options, state))),
    timeLeftMs: timeLeft(options, state),
    // A runner killed with -9 leaves its agent running: the next runner finds and ends it by this id.
    onSpawn: async (pgid, tag) => {
      if (state.current) Object.assign(state.current, { pgid, processTag: tag });
      await saveOwn();
    },
    save: saveOwn,
    wrap: box?.wrap,
  }).catch(async (error: unknown) => {
    await box?.finish([]);
    throw error;
  });
  // Read back after every process in the sandbox has ended: a background process cannot rewrite them later.
  const refused = await box?.finish([
    { from: 'claim.json', to: paths.claim },
    { from: 'plan.md', to: paths.plan },
  ]);
  if (refused && refused.denied.length > 0) {
    const hosts = refused.denied.join(', ');
    ctx.emit({
      type: 'warning',
      message: `the sandbox refused the agent's connections to ${hosts} (--sandbox-allow-host HOST[:PORT] allows one)`,
    });
  }
  const { proc, output } = run;
  const error = agentErrorOf(run, options);
  const agent: IterationRecord['agent'] = {
    exitCode: proc.exitCode,
    signal: proc.signal,
    timedOut: proc.timedOut,
    isError: Boolean(error),
    error,
    sessionId: output.sessionId,
    name: run.adapter.name,
    usage: run.usage,
    attempts: run.attempts,
    waitedMs: run.waitedMs,
    rateLimited: run.gaveUp ? true : undefined,
  };
  ctx.emit({
    type: 'agent.finished',
    iteration: n,
    exitCode: proc.exitCode,
    signal: proc.signal,
    timedOut: proc.timedOut,
    isError: Boolean(error),
    error,
    durationMs: Math.round(proc.durationMs),
    agent: run.adapter.name,
    costUsd: run.usage?.costUsd,
    attempts: run.attempts,
    toolCalls: output.toolCalls,
  });
  return { run, agent, failed: Boolean(error), guardBefore };
}
