import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { AgentRunContext } from '../agents/agent-run-context.js';
import type { RunOptions } from '../config/options.js';
import type { Gate } from '../gates/gate.js';
import type { Git } from '../git/git.js';
import type { Templates } from '../prompt/render-template.js';
import type { Plan } from '../recon/plan.js';
import type { Guard } from '../safety/check-safety.js';
import type { EvidenceStore } from '../safety/evidence-store.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { RunPruner } from '../state/prune-runs.js';
import type { StarPaths } from '../state/star-paths.js';
import type { VerifyContext } from '../verify/verify-context.js';
import type { Emit } from './events.js';
import type { FleetDenial } from './fleet-permit.js';

/** Everything an iteration needs, resolved once at start and passed down whole. */
export interface LoopContext {
  options: RunOptions;
  plan: Plan;
  /** Pinned at recon: the gates never change during a run. */
  gates: readonly Gate[];
  git: Git;
  paths: StarPaths;
  adapter: AgentAdapter;
  /** --fallback-agent: runs while the primary is rate-limited. */
  fallback?: AgentAdapter;
  templates: Templates;
  /** What verification needs (the gates, the verifier and what it is held to). */
  verify: VerifyContext;
  /** How agents run (implementer and verifier): the stop signals, waiting out rate limits, the price table. */
  agents: AgentRunContext;
  emit: Emit;
  signal: AbortSignal;
  /** Set by a gentle stop: no new iteration starts. */
  stopRequested: AbortSignal;
  /** The environment agents and gates start from. */
  env: NodeJS.ProcessEnv;
  /** The sandbox every agent run (and gate) goes in; absent when the run has none (--sandbox off, or none here). */
  sandbox?: Sandbox;
  /** Every iteration's commits, kept outside the repository. */
  evidence: EvidenceStore;
  /** What the agent is held to after every run (branch, ancestry, pushes, protected and pinned files, secrets). */
  guard: Guard;
  /** Credential-like environment values, scrubbed from every log and report. */
  redactor: { redact: (text: string) => string; longest: number };
  /** In a fleet's worker: the fleet's go-ahead before each iteration (its budgets are shared). */
  permit?: (story?: string) => Promise<FleetDenial | undefined>;
  /** Keeps `.star/runs/` within `keepRuns` folders and `keepRunsMb`. */
  runs: RunPruner;
  /** PRD mode: prd.json's path relative to the repository root, as the prompt names it. */
  prdRelative?: string;
}
