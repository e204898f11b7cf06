import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { AgentEvent, AgentRunContext } from '../agents/agent-run-context.js';
import type { Gate } from '../gates/gate.js';
import type { GatePlace } from '../gates/gate-bench.js';
import type { Git } from '../git/git.js';
import type { Templates } from '../prompt/render-template.js';
import type { Guard } from '../safety/check-safety.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { GateResult } from '../state/state-schema.js';

/** What verification reports as it goes (the loop adds them to its events). */
export type VerifyEvent =
  | { type: 'gate.finished'; iteration: number; result: Omit<GateResult, 'tail'> }
  /** A gate still running (every 15 s): a log read from a non-TTY run never looks hung. */
  | { type: 'gate.running'; gate: string; command: string; elapsedMs: number }
  | { type: 'verifier.started'; iteration: number; agent: string }
  | { type: 'verifier.finished'; iteration: number; verdict: 'accept' | 'reject'; error?: string };

/** The adversarial verifier: which agent, how it runs, what it is held to. */
export interface VerifierSetup {
  adapter: AgentAdapter;
  /** Stands in while the verifier's provider is rate-limited (when the verifier is the implementer's agent). */
  fallback?: AgentAdapter;
  model?: string;
  agentCmd?: string;
  passEnv: readonly string[];
  timeoutMs: number;
  templates: Templates;
  /** The boundaries the verifier is held to, as the implementer is. */
  guard: Guard;
  /** `.star/verdict.json` (the verifier writes it) and `.star/claim.json` (the implementer's claim). */
  verdictFile: string;
  claimFile: string;
  agents: AgentRunContext;
}

/** Everything verification needs from the run, resolved once at start. */
export interface VerifyContext {
  git: Git;
  root: string;
  /** Pinned at recon. */
  gates: readonly Gate[];
  /** The repository's files the gates execute (src/gates/files-gates-run.ts), pinned with them. */
  gateFiles: readonly string[];
  gateTimeoutMs: number;
  /** A claim with a source change must add or change a test (--require-tests). */
  requireTests: boolean;
  /** Mutants per claim (0: none) and their time budget in multiples of the test gates' own time. */
  mutants: { max: number; timeFactor: number };
  /** Where the gates run: a clean copy of the commit, the trusted dependencies, the sandbox. */
  gatePlace: GatePlace;
  /** The environment gates and hooks run with. */
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  redactor: { redact: (text: string) => string; longest: number };
  emit: (event: VerifyEvent | AgentEvent) => void;
  /** prd.json relative to the root: star-loop's own bookkeeping, left out of the checks on the diff. */
  prdRelative?: string;
  /** The run's sandbox: the verifier (and the gates) run in it; absent with --sandbox off or none here. */
  sandbox?: Sandbox;
  /** Task mode: what the work was meant to do. */
  task?: string;
  verifier: VerifierSetup;
}
