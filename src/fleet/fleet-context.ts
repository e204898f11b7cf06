import type { RunOptions } from '../config/options.js';
import type { Gate } from '../gates/gate.js';
import type { GateCache } from '../gates/gate-cache.js';
import type { Git } from '../git/git.js';
import type { Endpoint } from '../sandbox/endpoint.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { StarPaths } from '../state/star-paths.js';
import type { FleetEvent } from './fleet-events.js';

/** Everything the fleet's parts need, resolved once at start. */
export interface FleetContext {
  root: string;
  git: Git;
  paths: StarPaths;
  options: RunOptions;
  workers: number;
  /** Returns (merge conflicts, failures after the merge) and deaths before a story is parked. */
  maxReturns: number;
  gates: readonly Gate[];
  /** `run` flags every worker gets. */
  passArgs: string[];
  env: NodeJS.ProcessEnv;
  emit: (event: FleetEvent) => void;
  /** Stop now: workers end their agents at once. */
  signal: AbortSignal;
  /** Stop gently: workers finish their iteration. */
  stopRequested: AbortSignal;
  redactor: { redact: (text: string) => string; longest: number };
  /** `--worktree-setup`: run in each new worktree before its worker starts (e.g. `npm ci`). */
  setup?: string;
  /** Where the merges' gates run: the sandbox (absent with --sandbox off) and the hosts they may reach. */
  sandbox?: Sandbox;
  gateHosts: readonly Endpoint[];
  /** The fleet's gate results by tree, shared with its workers: a merge that changed nothing is not re-gated. */
  gateCache?: GateCache;
  /** A gate still running on a merge or the baseline. */
  heartbeat?: (gate: Gate, elapsedMs: number) => void;
  /** The first wait when no story can start and workers are busy (doubles up to 60 s). */
  idleBackoffMs?: number;
}
