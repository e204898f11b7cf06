import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { getAgentAdapter } from '../agents/registry.js';
import { loadConfig } from '../config/load-config.js';
import type { RunOptions } from '../config/options.js';
import { type RunFlags, resolveRunOptions } from '../config/resolve-options.js';
import { ExitCode, InputError } from '../errors.js';
import { discoverGates } from '../gates/discover-gates.js';
import { Git } from '../git/git.js';
import { readGitState } from '../git/read-git-state.js';
import { loadPrd } from '../prd/load-prd.js';
import { findExecutable } from '../proc/find-executable.js';
import { buildPlan } from '../recon/plan.js';
import { renderPlan } from '../report/render-plan.js';
import { printLine } from '../report/terminal-output.js';
import { decideWorkspace, defaultLoopBranch, describeWorkspace, worktreeDir } from '../safety/decide-workspace.js';
import { starPaths } from '../state/star-paths.js';
import { readState } from '../state/state-store.js';
import { uncoveredCostBudget } from '../usage/check-budgets.js';

function targetOf(options: RunOptions): string {
  if (options.prdFile) return relative(options.root, options.prdFile) || options.prdFile;
  if (options.promptFile) return relative(options.root, options.promptFile) || options.promptFile;
  const first = (options.task ?? '').split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 80)}…` : first;
}

/** Recon: read everything, decide the plan. Writes nothing. */
export type Recon = Awaited<ReturnType<typeof recon>>;

async function recon(cwd: string, taskWords: string[], flags: RunFlags) {
  const root = await Git.topLevel(cwd);
  if (!root)
    throw new InputError(`${cwd} is not inside a git repository`, 'run star-loop inside your project (or `git init` and commit first)');
  const { config } = await loadConfig(root);
  const options = await resolveRunOptions({ cwd, root, taskText: taskWords.join(' '), flags, config });
  const adapter = getAgentAdapter(options.agent);
  const fallback = options.fallbackAgent ? getAgentAdapter(options.fallbackAgent) : undefined;
  const uncovered = uncoveredCostBudget(options, [adapter, getAgentAdapter(options.verifierAgent), ...(fallback ? [fallback] : [])]);
  if (uncovered)
    throw new InputError(uncovered, 'also give --max-time (it bounds what cost cannot), or use an agent that reports its cost');
  const git = new Git(root);
  const prd = options.prdFile ? await loadPrd(options.prdFile) : undefined;
  if (prd && options.story) {
    const story = prd.prd.userStories.find((s) => s.id === options.story);
    if (!story)
      throw new InputError(`--story ${options.story}: no such story in ${options.prdFile}`, 'use an id from `star-loop prd ready`');
    const waiting = (story.dependsOn ?? []).filter((d) => !prd.prd.userStories.find((s) => s.id === d)?.passes);
    if (!story.passes && waiting.length > 0) {
      throw new InputError(
        `--story ${story.id} is not ready: it waits for ${waiting.join(', ')}`,
        'run a ready story (`star-loop prd ready`) first',
      );
    }
  }
  const [gitState, gates, executable] = await Promise.all([
    readGitState(git),
    discoverGates(root, options.gates),
    findExecutable(adapter.executable({ agentCmd: options.agentCmd })),
  ]);
  const target = options.branch ?? prd?.prd.branchName;
  // A runner killed mid-iteration leaves its agent's uncommitted work: that is not the user's, and the run
  // that continues commits it first.
  const previous = options.worktree ? undefined : await readState(starPaths(root).state).catch(() => undefined);
  if (previous?.current && previous.status !== 'finished') options.allowDirty = true;
  const workspaceInput = { options, git: gitState, target, targetExists: target ? await git.branchExists(target) : false };
  const worktreeBranch = target ?? defaultLoopBranch(options);
  const workspace = decideWorkspace({
    ...workspaceInput,
    worktreeExists: options.worktree && existsSync(worktreeDir(root, worktreeBranch)),
  });
  // The invocation is pure: built once here with an empty prompt to show what will run.
  const probe = adapter.invocation({
    root,
    prompt: '',
    iteration: 0,
    runDir: '',
    claimFile: '',
    role: 'implementer',
    model: options.model,
    agentCmd: options.agentCmd,
    baseEnv: {},
    promptFile: '.star/runs/NNNN/prompt.md',
  });
  const plan = buildPlan({
    options,
    git: gitState,
    gates,
    prd: prd?.prd,
    target: targetOf(options),
    agent: { name: adapter.name, command: probe.display, found: Boolean(executable) },
    workspace: describeWorkspace(workspace),
  });
  if (workspace.kind === 'refuse') plan.risks.unshift(`star-loop will refuse to start: ${workspace.message}`);
  return { options, adapter, fallback, git, plan, gates, agentNotes: probe.notes, workspace };
}

export async function runCommand(taskWords: string[], flags: RunFlags, rawArgs: string[] = []): Promise<ExitCode> {
  const reconResult = await recon(process.cwd(), taskWords, flags);
  const { options: reconOptions, plan } = reconResult;
  if (reconOptions.dryRun) {
    printLine(reconOptions.json ? JSON.stringify({ type: 'plan', plan }) : renderPlan(plan));
    return ExitCode.Complete;
  }
  // Only a real run loads the loop, the logger and the rest: recon and --dry-run stay fast.
  const { startRun } = await import('./start-run.js');
  return startRun(reconResult, rawArgs);
}
