import { limitsOf, type RunOptions } from '../config/options.js';
import type { RunFlags } from '../config/resolve-options.js';
import type { Gate } from '../gates/gate.js';
import type { Prd } from '../prd/prd-schema.js';
import { blockedStories } from '../prd/select-next-story.js';
import { describeWorkspace, type WorkspacePlan } from '../safety/decide-workspace.js';
import type { FleetState } from '../state/fleet-state-schema.js';
import { newRunId } from '../state/resume-or-create-state.js';
import { FLEET_SCHEMA_VERSION } from '../state/schema-versions.js';
import { fleetReadyStories } from './decide-fleet.js';

export type FleetStart = { kind: 'new' | 'continue' };

/** A paused (or crashed) fleet on the same PRD and branch is continued; anything else starts a new one (pure). */
export function decideFleetStart(input: { previous?: FleetState; prd: string; branch: string }): FleetStart {
  const { previous } = input;
  const same =
    previous && previous.status !== 'finished' && previous.prd === input.prd && previous.branch === input.branch;
  return { kind: same ? 'continue' : 'new' };
}

export function newFleetState(input: {
  prd: string;
  branch: string;
  workers: number;
  options: RunOptions;
}): FleetState {
  const now = new Date().toISOString();
  const { options } = input;
  return {
    schemaVersion: FLEET_SCHEMA_VERSION,
    fleetId: newRunId(),
    prd: input.prd,
    branch: input.branch,
    workers: input.workers,
    status: 'running',
    argv: [],
    startedAt: now,
    updatedAt: now,
    activeMs: 0,
    limits: limitsOf(options),
    spent: {
      iterations: 0,
      verifierRuns: 0,
      costUsd: 0,
      tokens: 0,
      unknownCostRuns: 0,
      dearestCostUsd: 0,
      dearestTokens: 0,
    },
    stories: {},
    running: [],
    merges: [],
    timeline: [],
  };
}

/** The fleet's flags every worker gets as they are (its budgets, branch and output are the fleet's own). */
const PASSED: ReadonlyArray<readonly [keyof RunFlags, string]> = [
  ['agent', '--agent'],
  ['agentCmd', '--agent-cmd'],
  ['model', '--model'],
  ['maxTurns', '--max-turns'],
  ['maxWait', '--max-wait'],
  ['fallbackAgent', '--fallback-agent'],
  ['passEnv', '--pass-env'],
  ['stallAfter', '--stall-after'],
  ['parkAfter', '--park-after'],
  ['sameErrorLimit', '--same-error-limit'],
  ['onStall', '--on-stall'],
  ['iterationTimeout', '--iteration-timeout'],
  ['idleTimeout', '--idle-timeout'],
  ['gateTimeout', '--gate-timeout'],
  ['verify', '--verify'],
  ['verifierAgent', '--verifier-agent'],
  ['verifierModel', '--verifier-model'],
  ['allowPush', '--allow-push'],
  ['protect', '--protect'],
  ['sandbox', '--sandbox'],
  ['sandboxAllowHost', '--sandbox-allow-host'],
  ['sandboxAllowWrite', '--sandbox-allow-write'],
  ['debug', '--debug'],
];

/** The worker's copy of the fleet's flags (pure). */
export function workerPassArgs(flags: RunFlags): string[] {
  const args: string[] = [];
  for (const [key, flag] of PASSED) {
    const value = flags[key];
    if (value === undefined || value === false) continue;
    if (value === true) args.push(flag);
    else if (Array.isArray(value)) for (const v of value) args.push(flag, v);
    else args.push(flag, String(value));
  }
  return args;
}

/** `star-loop fleet --dry-run`: what would run, where, in what order (printed as text, or with --json as is). */
export interface FleetPlan {
  type: 'fleet-plan';
  fleet: FleetStart['kind'];
  prd: string;
  branch: string;
  workspace: string;
  workers: number;
  maxReturns: number;
  agent: string;
  agentFound: boolean;
  gates: Array<{ name: string; command: string; source: string }>;
  ready: string[];
  waiting: Array<{ id: string; waitingFor: string[] }>;
}

export function buildFleetPlan(input: {
  prd: Prd;
  prdRelative: string;
  integration: string;
  workers: number;
  maxReturns: number;
  workspace: WorkspacePlan;
  gates: readonly Gate[];
  agent: string;
  found: boolean;
  start: FleetStart;
}): FleetPlan {
  const passed = new Set(input.prd.userStories.filter((s) => s.passes).map((s) => s.id));
  return {
    type: 'fleet-plan',
    fleet: input.start.kind,
    prd: input.prdRelative,
    branch: input.integration,
    workspace: describeWorkspace(input.workspace),
    workers: input.workers,
    maxReturns: input.maxReturns,
    agent: input.agent,
    agentFound: input.found,
    gates: input.gates.map(({ name, command, source }) => ({ name, command, source })),
    ready: fleetReadyStories(input.prd, { stories: {} }),
    waiting: blockedStories(input.prd).map((s) => ({
      id: s.id,
      waitingFor: (s.dependsOn ?? []).filter((d) => !passed.has(d)),
    })),
  };
}

export function renderFleetPlan(plan: FleetPlan): string {
  return [
    `star-loop fleet plan (${plan.fleet === 'continue' ? 'continues the paused fleet' : 'a new fleet'})`,
    `  PRD: ${plan.prd}; integration branch: ${plan.branch} (${plan.workspace})`,
    `  workers: ${plan.workers}, each \`star-loop run --story ID\` in a worktree on ${plan.branch}--<id>; a story ` +
      `is parked after ${plan.maxReturns} returns`,
    `  agent: ${plan.agent}${plan.agentFound ? '' : ' (NOT FOUND on PATH)'}`,
    `  gates (run by every worker, and on every merge before ${plan.branch} moves): ` +
      `${plan.gates.map((g) => `${g.name} \`${g.command}\``).join(', ') || 'none found'}`,
    `  ready now, in order: ${plan.ready.join(', ') || 'none'}`,
    ...(plan.waiting.length
      ? [`  waiting: ${plan.waiting.map((s) => `${s.id} (for ${s.waitingFor.join(', ')})`).join('; ')}`]
      : []),
  ].join('\n');
}
