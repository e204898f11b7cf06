import type { LoopEventWithTime } from '../loop/events.js';
import { FLEET_WORKER_ENV, type PermitAnswer, type PermitRequest } from '../loop/fleet-permit.js';
import { runProcess } from '../proc/run-process.js';
import type { StopReason } from '../state/stop-reasons.js';

export interface WorkerSpec {
  story: string;
  /** The story's worktree, on its own branch. */
  worktree: string;
  branch: string;
  /** prd.json inside the worktree. */
  prdFile: string;
  /** The `run` flags every worker gets (agent, model, verification, timeouts…), from the fleet's own. */
  passArgs: string[];
  /** What is left of the fleet's budgets when the worker starts (its permits keep them exact). */
  budgets: { maxIterations: number; maxTimeMs?: number; maxCostUsd?: number; maxTokens?: number };
  logFile: string;
  env: NodeJS.ProcessEnv;
  onSpawn: (pid: number) => void;
  onEvent: (event: LoopEventWithTime) => void;
  /** A permit request; `answer` may be called later (the fleet waits for the worker's events first). */
  onPermit: (request: PermitRequest, answer: (permit: PermitAnswer) => void) => void;
}

export interface WorkerExit {
  exitCode?: number;
  signal?: string;
  finished?: { stopReason: StopReason; detail: string };
  stderrTail: string;
}

/** This star-loop, as a command: the same Node, loader flags and entry script. */
function self(): { command: string; args: string[] } {
  return { command: process.execPath, args: [...process.execArgv, process.argv[1] ?? 'star-loop'] };
}

/** The `star-loop run` arguments of a worker (pure). */
export function workerArgs(spec: Pick<WorkerSpec, 'prdFile' | 'story' | 'branch' | 'passArgs' | 'budgets'>): string[] {
  const { budgets } = spec;
  return [
    'run',
    '--prd',
    spec.prdFile,
    '--story',
    spec.story,
    '--branch',
    spec.branch,
    '--json',
    '--max-iterations',
    String(budgets.maxIterations),
    ...(budgets.maxTimeMs !== undefined ? ['--max-time', `${Math.max(1, Math.round(budgets.maxTimeMs))}ms`] : []),
    ...(budgets.maxCostUsd !== undefined ? ['--max-cost', budgets.maxCostUsd.toFixed(6)] : []),
    ...(budgets.maxTokens !== undefined ? ['--max-tokens', String(budgets.maxTokens)] : []),
    ...spec.passArgs,
  ];
}

/**
 * One worker: `star-loop run --story ID --json` in the story's worktree, as a child process in its own
 * process group with an IPC channel to the fleet (its permits; when the fleet dies, the worker hears it and
 * stops after its iteration). Its events are read from stdout; everything it prints goes to `logFile`.
 */
export async function runWorker(spec: WorkerSpec): Promise<WorkerExit> {
  const { command, args } = self();
  let finished: WorkerExit['finished'];
  const env: NodeJS.ProcessEnv = { ...spec.env, [FLEET_WORKER_ENV]: '1' };
  // The fleet writes the job summary; a worker's would repeat part of it.
  delete env.GITHUB_STEP_SUMMARY;
  const result = await runProcess({
    command,
    args: [...args, ...workerArgs(spec)],
    cwd: spec.worktree,
    env,
    logFile: spec.logFile,
    tailBytes: 16 * 1024,
    onSpawn: spec.onSpawn,
    onStdoutLine: (line) => {
      if (!line.startsWith('{')) return;
      let event: LoopEventWithTime;
      try {
        event = JSON.parse(line) as LoopEventWithTime;
      } catch {
        return;
      }
      if (event.type === 'run.finished') finished = { stopReason: event.stopReason, detail: event.detail };
      spec.onEvent(event);
    },
    ipc: (message, reply) => {
      if ((message as Partial<PermitRequest>)?.type === 'permit') spec.onPermit(message as PermitRequest, reply);
    },
  });
  const stderrTail = result.tail
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('{'))
    .join('\n');
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    finished,
    stderrTail: result.spawnError ? `${result.spawnError}\n${stderrTail}` : stderrTail,
  };
}
