import type { ModelPrice } from '../usage/price-table.js';
import type { GateSpec } from './config-schema.js';

export type OnStall = 'pause' | 'stop' | 'continue';
export type VerifyMode = 'claims' | 'every' | 'off';
export type SandboxMode = 'auto' | 'required' | 'off';

/** Every option of a run, resolved once (defaults < star.config.json < flags) and passed down whole. */
export interface RunOptions {
  /** Repository root (the git top level); the agent and the gates run here. */
  root: string;
  mode: 'prd' | 'task';
  /** PRD mode: absolute path of prd.json. */
  prdFile?: string;
  /** PRD mode, --story: work on this story only (one loop per story, e.g. one CI job each). */
  story?: string;
  /** Task mode: the task text (from the argument or the prompt file). */
  task?: string;
  /** Task mode: absolute path of the prompt file the task came from, if any. */
  promptFile?: string;
  dryRun: boolean;
  agent: string;
  agentCmd?: string;
  model?: string;
  maxIterations: number;
  maxTimeMs?: number;
  /** Budgets from what the agents report (cost in USD, tokens in + out), checked before each iteration. */
  maxCostUsd?: number;
  maxTokens?: number;
  /** Per agent run, passed to agents that accept it (Claude Code's --max-turns). */
  maxTurns?: number;
  /** The longest one iteration waits out rate limits before the run stops (resumable). */
  maxWaitMs: number;
  /** Backoff between attempts of a rate-limited agent when the provider gives no reset time. */
  backoff: { initialMs: number; maxMs: number };
  /** Runs while the primary agent is rate-limited, then the primary again. */
  fallbackAgent?: string;
  /** Credential-like environment variables every agent may see (others are kept from named agents). */
  passEnv: string[];
  /** Overrides and additions to the price table (USD per million tokens). */
  prices: Record<string, ModelPrice>;
  stallAfter: number;
  /** Rejected claims on one story before it is parked for a human and the loop moves on. */
  parkAfter: number;
  /** Iterations in a row ending with the same error before the run stops. */
  sameErrorLimit: number;
  onStall: OnStall;
  iterationTimeoutMs: number;
  /** End an agent that prints nothing for this long. */
  idleTimeoutMs?: number;
  gateTimeoutMs: number;
  json: boolean;
  /** Stream every line the agent prints to the terminal (its activity is otherwise summarised). */
  verbose: boolean;
  /** Stack traces for internal errors. */
  debug: boolean;
  /** claims: verify completion claims; every: also check every iteration's work; off: trust the agent. */
  verify: VerifyMode;
  /** The adversarial verifier: the implementer's agent and model unless set. */
  verifierAgent: string;
  /** A claim with a source change must add or change a test (else: recorded as no new test evidence). */
  requireTests: boolean;
  /** Refuse to start (exit 4) when no gate can check a claim's tests: none runs tests, or all were red. */
  requireTestsGate: boolean;
  /** Mutants of the claimed lines per claim (0: none), in at most `mutantTime` × the test gates' time. */
  mutants: number;
  mutantTime: number;
  /** Iteration folders kept under .star/runs/ (older ones pruned, the report's evidence kept). */
  keepRuns: number;
  /** `.star/runs/` is pruned, oldest first, past this many MB (the report's evidence stays). */
  keepRunsMb: number;
  verifierModel?: string;
  /** Safety: refusals that only a flag lifts, and the branch the loop runs on. */
  allowDirty: boolean;
  allowDefaultBranch: boolean;
  allowPush: boolean;
  /** The branch to run on (PRD `branchName`, or `--branch`); created at `base` (default HEAD) if missing. */
  branch?: string;
  base?: string;
  /** Run in a new git worktree, leaving the user's checkout untouched. */
  worktree: boolean;
  /** A command run when the loop stops, with STAR_STOP_REASON, STAR_EXIT_CODE and STAR_REPORT. */
  onFinish?: string;
  /** Globs the agent must not change. */
  protectedPaths: string[];
  /** Gates from star.config.json, replacing discovery when present. */
  gates?: GateSpec[];
  /** The sandbox: its mode, hosts agents and gates may reach besides their own, folders agents may write. */
  sandbox: { mode: SandboxMode; allowHosts: string[]; allowWrite: string[]; gateHosts: string[] };
}

/** The budgets of a run (or a fleet), as its state records them. */
export function limitsOf(options: Pick<RunOptions, 'maxIterations' | 'maxTimeMs' | 'maxCostUsd' | 'maxTokens'>) {
  return {
    maxIterations: options.maxIterations,
    maxTimeMs: options.maxTimeMs,
    maxCostUsd: options.maxCostUsd,
    maxTokens: options.maxTokens,
  };
}

export const DEFAULTS = {
  agent: 'claude',
  maxIterations: 20,
  stallAfter: 3,
  parkAfter: 3,
  sameErrorLimit: 5,
  onStall: 'pause' as OnStall,
  iterationTimeout: '30m',
  maxWait: '1h',
  backoffInitial: '30s',
  backoffMax: '15m',
  gateTimeout: '15m',
  verify: 'claims' as VerifyMode,
  /** Paths the agent must not change; star.config.json's `protectedPaths` replaces this list, `protect` adds to it. */
  protectedPaths: ['.env*', '.github/workflows/**'],
  sandbox: 'auto' as SandboxMode,
} as const;
