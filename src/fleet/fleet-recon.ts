import { relative } from 'node:path';
import type { RunFlags } from '../config/resolve-options.js';
import { InputError } from '../errors.js';
import { refuseBadBranchName } from '../recon/refusals.js';
import { type Survey, surveyProject } from '../recon/survey-project.js';
import { decideWorkspace, type WorkspacePlan } from '../safety/decide-workspace.js';
import { type FleetState, fleetStateSchema } from '../state/fleet-state-schema.js';
import { FLEET_SCHEMA_VERSION } from '../state/schema-versions.js';
import { type StarPaths, starPaths } from '../state/star-paths.js';
import { readStateFile } from '../state/state-store.js';
import { buildFleetPlan, decideFleetStart, type FleetPlan, type FleetStart } from './fleet-plan.js';

export interface FleetFlags extends RunFlags {
  workers?: string;
  maxReturns?: string;
  worktreeSetup?: string;
}

/** What the fleet's recon found and decided. Nothing is written. */
export interface FleetRecon extends Survey {
  prd: NonNullable<Survey['prd']>;
  paths: StarPaths;
  /** The branch every story is merged into (prd.json's branchName, or --branch). */
  integration: string;
  /** prd.json relative to the root. */
  prdRelative: string;
  workers: number;
  maxReturns: number;
  /** The fleet state left by an earlier fleet here, if any, and whether it is continued. */
  previous?: FleetState;
  start: FleetStart;
  workspace: WorkspacePlan;
  plan: FleetPlan;
}

function count(value: string | undefined, fallback: number, field: string, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new InputError(`${field}: expected a whole number from 1 to ${max}, got "${value}"`);
  return n;
}

/**
 * The recon phase of `star-loop fleet`: the same survey as `run` (on prd.json, prd.json by default), the
 * integration branch, the workspace (the repository root, never a worktree of its own), and the plan.
 */
export async function reconFleet(cwd: string, flags: FleetFlags): Promise<FleetRecon> {
  const workers = count(flags.workers, 2, '--workers', 16);
  const maxReturns = count(flags.maxReturns, 2, '--max-returns', 20);
  const survey = await surveyProject({
    cwd,
    taskText: '',
    flags: { ...flags, prd: flags.prd ?? 'prd.json' },
    hint: 'run star-loop inside your project',
  });
  const { root, options, git, prd } = survey;
  if (!options.prdFile || !prd) throw new InputError('star-loop fleet works on a prd.json', 'pass --prd prd.json');
  const integration = options.branch ?? prd.prd.branchName;
  if (!integration) {
    throw new InputError(
      `${relative(cwd, options.prdFile) || options.prdFile}: branchName is missing: the fleet merges every story ` +
        `into that branch`,
      'set "branchName" in prd.json (e.g. "ralph/feature"), or pass --branch NAME',
    );
  }
  await refuseBadBranchName(
    git,
    integration,
    options.branch ? '--branch' : `${relative(cwd, options.prdFile)}: branchName`,
  );
  const paths = starPaths(root);
  const prdRelative = relative(root, options.prdFile);
  const previous = await readStateFile(paths.fleet, fleetStateSchema, FLEET_SCHEMA_VERSION);
  const workspace = decideWorkspace({
    options: { ...options, worktree: false },
    git: survey.gitState,
    target: integration,
    targetExists: await git.branchExists(integration),
    worktreeExists: false,
  });
  const start = decideFleetStart({ previous, prd: prdRelative, branch: integration });
  const plan = buildFleetPlan({
    prd: prd.prd,
    prdRelative,
    integration,
    workers,
    maxReturns,
    workspace,
    gates: survey.gates,
    agent: survey.adapter.name,
    found: survey.agentFound,
    start,
  });
  return { ...survey, prd, paths, integration, prdRelative, workers, maxReturns, previous, start, workspace, plan };
}
