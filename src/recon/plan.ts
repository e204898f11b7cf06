import type { RunOptions } from '../config/options.js';
import type { DroppedGate, Gate } from '../gates/gate.js';
import { testsGap } from '../gates/gate-health.js';
import type { GitState } from '../git/read-git-state.js';
import type { Prd } from '../prd/prd-schema.js';
import { blockedStories, orderStories, passedIds, selectNextStory } from '../prd/select-next-story.js';
import type { SandboxDecision } from '../sandbox/decide-sandbox.js';

export interface PlannedStory {
  id: string;
  title: string;
  priority?: number;
  passes: boolean;
  /** Unfinished stories this one waits for. */
  waitingFor: string[];
}

/** What `run` will do, as data: `--dry-run` prints it, `run` carries it out, the report repeats it. */
export interface Plan {
  mode: 'prd' | 'task';
  target: string;
  git: GitState;
  agent: { name: string; command: string; found: boolean };
  gates: Gate[];
  /** Commands recon found and left out, with the reason. */
  droppedGates: DroppedGate[];
  /** The repository's files the gates execute (pinned with them). */
  gateFiles: string[];
  stories?: { total: number; passed: number; remaining: number; next?: string; order: PlannedStory[] };
  task?: string;
  limits: {
    maxIterations: number;
    maxTimeMs?: number;
    stallAfter: number;
    onStall: string;
    iterationTimeoutMs: number;
    gateTimeoutMs: number;
    maxCostUsd?: number;
    maxTokens?: number;
    maxTurns?: number;
    maxWaitMs: number;
    fallbackAgent?: string;
  };
  verify: { mode: string; verifier: string };
  /** The sandbox: asked for (--sandbox), used or not, in one line. */
  sandbox: { mode: string; active: boolean; detail: string; warnings: string[] };
  /** Safety: the protected path globs, and whether pushing is blocked. */
  safety: { protectedPaths: string[]; pushBlocked: boolean };
  /** Where the loop commits: the branch, or the worktree. */
  workspace: string;
  /** Biggest first. */
  risks: string[];
}

export interface PlanInput {
  options: RunOptions;
  git: GitState;
  gates: Gate[];
  droppedGates?: DroppedGate[];
  /** The repository's files the gates execute (pinned with them). */
  gateFiles: string[];
  prd?: Prd;
  target: string;
  agent: { name: string; command: string; found: boolean };
  workspace: string;
  sandbox: SandboxDecision;
}

export function buildPlan(input: PlanInput): Plan {
  const { options, git, gates, prd, agent } = input;
  const risks: string[] = [];
  if (gates.length === 0) {
    risks.push(
      'no quality gates found: claims can only be checked by inspection — add a test script, or `gates` in ' +
        'star.config.json',
    );
  }
  const gap = gates.length > 0 ? testsGap(gates) : undefined;
  if (gap)
    risks.unshift(
      `${gap} — claims will be checked by gates that do not test anything; add a test command to \`gates\` in ` +
        'star.config.json (--require-tests-gate refuses to start like this)',
    );
  if (options.verify === 'off')
    risks.unshift("verification is off (--verify off): claims will be accepted on the agent's word alone");
  if (!agent.found)
    risks.push(`agent "${agent.name}": \`${agent.command}\` was not found on PATH, so iteration 1 will fail`);
  let stories: Plan['stories'];
  if (prd) {
    const passed = passedIds(prd);
    const order = orderStories(prd).map((s) => ({
      id: s.id,
      title: s.title,
      priority: s.priority,
      passes: s.passes,
      waitingFor: (s.dependsOn ?? []).filter((d) => !passed.has(d)),
    }));
    const next = selectNextStory(prd, passed, undefined, options.story);
    stories = {
      total: prd.userStories.length,
      passed: passed.size,
      remaining: prd.userStories.length - passed.size,
      next: next?.id,
      order,
    };
    if (stories.remaining === 0) risks.push('every story already passes: there is nothing to do');
    else if (!next)
      risks.push(
        `no story can start: ${blockedStories(prd, passed)
          .map((s) => s.id)
          .join(', ')} wait for unfinished dependencies`,
      );
  }
  if (!git.head)
    risks.push('the repository has no commits yet: progress is measured against commits, so make one first');
  return {
    mode: options.mode,
    target: input.target,
    git,
    agent,
    gates,
    droppedGates: input.droppedGates ?? [],
    gateFiles: input.gateFiles,
    stories,
    task: options.task,
    limits: {
      maxIterations: options.maxIterations,
      maxTimeMs: options.maxTimeMs,
      stallAfter: options.stallAfter,
      onStall: options.onStall,
      iterationTimeoutMs: options.iterationTimeoutMs,
      gateTimeoutMs: options.gateTimeoutMs,
      maxCostUsd: options.maxCostUsd,
      maxTokens: options.maxTokens,
      maxTurns: options.maxTurns,
      maxWaitMs: options.maxWaitMs,
      fallbackAgent: options.fallbackAgent,
    },
    workspace: input.workspace,
    sandbox: {
      mode: options.sandbox.mode,
      active: input.sandbox.active,
      detail: input.sandbox.detail,
      warnings: input.sandbox.warnings,
    },
    safety: { protectedPaths: options.protectedPaths, pushBlocked: !options.allowPush },
    verify: {
      mode: options.verify,
      verifier: `${options.verifierAgent}${options.verifierModel ? ` (${options.verifierModel})` : ''}`,
    },
    risks,
  };
}
