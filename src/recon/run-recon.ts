import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { RunOptions } from '../config/options.js';
import type { RunFlags } from '../config/resolve-options.js';
import { InputError } from '../errors.js';
import type { Gate } from '../gates/gate.js';
import type { Git } from '../git/git.js';
import type { LoadedPrd } from '../prd/load-prd.js';
import {
  decideWorkspace,
  defaultLoopBranch,
  describeWorkspace,
  type WorkspacePlan,
  worktreeDir,
} from '../safety/decide-workspace.js';
import type { SandboxDecision } from '../sandbox/decide-sandbox.js';
import type { SandboxSupport } from '../sandbox/probe-sandbox.js';
import { starPaths } from '../state/star-paths.js';
import { readState } from '../state/state-store.js';
import { buildPlan, type Plan } from './plan.js';
import { refuseBadBranchName } from './refusals.js';
import { surveyProject } from './survey-project.js';

/** What recon found and decided: everything a run needs to start, and the plan `--dry-run` prints. */
export interface Recon {
  options: RunOptions;
  adapter: AgentAdapter;
  fallback?: AgentAdapter;
  git: Git;
  plan: Plan;
  gates: Gate[];
  /** The repository's files the gates execute, pinned with them. */
  gateFiles: string[];
  /** What the adapter says about how it will run (e.g. IS_SANDBOX set for Claude Code as root). */
  agentNotes: string[];
  workspace: WorkspacePlan;
  /** What the sandbox can do here, and whether this run uses it. */
  sandboxSupport: SandboxSupport;
  sandbox: SandboxDecision;
}

function targetOf(options: RunOptions): string {
  if (options.prdFile) return relative(options.root, options.prdFile) || options.prdFile;
  if (options.promptFile) return relative(options.root, options.promptFile) || options.promptFile;
  const first = (options.task ?? '').split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 80)}…` : first;
}

/** --story must name a story of prd.json that can start now (its dependencies pass). */
function checkStory(prd: LoadedPrd, options: RunOptions): void {
  const story = prd.prd.userStories.find((s) => s.id === options.story);
  if (!story)
    throw new InputError(
      `--story ${options.story}: no such story in ${options.prdFile}`,
      'use an id from `star-loop prd ready`',
    );
  const waiting = (story.dependsOn ?? []).filter((d) => !prd.prd.userStories.find((s) => s.id === d)?.passes);
  if (!story.passes && waiting.length > 0) {
    throw new InputError(
      `--story ${story.id} is not ready: it waits for ${waiting.join(', ')}`,
      'run a ready story (`star-loop prd ready`) first',
    );
  }
}

/**
 * The recon phase of `star-loop run`: read everything, decide the workspace and the plan. Writes nothing, so
 * `--dry-run` is free; a refused workspace is the plan's biggest risk here and a refusal when the run starts.
 */
export async function runRecon(cwd: string, taskWords: string[], flags: RunFlags): Promise<Recon> {
  const survey = await surveyProject({
    cwd,
    taskText: taskWords.join(' '),
    flags,
    hint: 'run star-loop inside your project (or `git init` and commit first)',
  });
  const { root, options, adapter, git, gitState, gates, prd } = survey;
  if (prd && options.story) checkStory(prd, options);
  const target = options.branch ?? prd?.prd.branchName;
  // Asked side by side: a bad name is refused whatever the others found (asking git whether
  // `refs/heads/<bad name>` exists is harmless).
  const [, previous, targetExists] = await Promise.all([
    refuseBadBranchName(git, target, options.branch ? '--branch' : `${targetOf(options)}: branchName`),
    options.worktree ? undefined : readState(starPaths(root).state).catch(() => undefined),
    target ? git.branchExists(target) : false,
  ]);
  // A runner killed mid-iteration leaves its agent's uncommitted work: that is not the user's, and the run
  // that continues commits it first.
  if (previous?.current && previous.status !== 'finished') options.allowDirty = true;
  const workspace = decideWorkspace({
    options,
    git: gitState,
    target,
    targetExists,
    worktreeExists: options.worktree && existsSync(worktreeDir(root, target ?? defaultLoopBranch(options))),
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
    droppedGates: survey.droppedGates,
    gateFiles: survey.gateFiles,
    prd: prd?.prd,
    target: targetOf(options),
    agent: { name: adapter.name, command: probe.display, found: survey.agentFound },
    workspace: describeWorkspace(workspace),
    sandbox: survey.sandbox,
  });
  if (workspace.kind === 'refuse') plan.risks.unshift(`star-loop will refuse to start: ${workspace.message}`);
  const { fallback, gateFiles } = survey;
  const { sandboxSupport, sandbox } = survey;
  return {
    options,
    adapter,
    fallback,
    git,
    plan,
    gates,
    gateFiles,
    agentNotes: probe.notes,
    workspace,
    sandboxSupport,
    sandbox,
  };
}
