/** What star-loop tells an adapter about the iteration it is about to run. */
export interface AgentContext {
  root: string;
  prompt: string;
  iteration: number;
  runDir: string;
  claimFile: string;
  storyId?: string;
  model?: string;
  agentCmd?: string;
  role: 'implementer' | 'verifier';
  /** Verifier runs: where the verdict goes. */
  verdictFile?: string;
  /** What is left of the run's budgets, for agents that can enforce one themselves. */
  budget?: { maxCostUsd?: number; maxTurns?: number };
  /** star-loop's own environment, from which the agent's is built. */
  baseEnv: NodeJS.ProcessEnv;
}

/** How to start the agent: a pure description, so it can be shown, tested and dry-run. */
export interface AgentInvocation {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** The prompt on stdin, then closed; undefined means stdin is /dev/null (prompt in argv). */
  input?: string;
  /** What `--dry-run` and the report show instead of the whole prompt. */
  display: string;
  notes: string[];
}

/**
 * The provider refused or failed the request (HTTP 429/529/5xx, usage limit, overload): not the agent's
 * fault, so the iteration is waited out instead of counted as a failure. Read from structured output only.
 */
export interface RateLimitSignal {
  kind: 'rate-limit' | 'overloaded' | 'outage';
  /** When the provider said the limit lifts (epoch ms), if it said. */
  resetAt?: number;
  detail: string;
}

/** What the adapter read from the agent's output: the final message only, never the whole stream. */
export interface AgentOutput {
  finalMessage: string;
  isError: boolean;
  errorMessage?: string;
  sessionId?: string;
  /** The model that answered, as the agent reported it (for the price table). */
  model?: string;
  costUsd?: number;
  /** Every input token, cache reads and writes included. */
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  rateLimit?: RateLimitSignal;
  /** Headless hazards, where the output says: tools the agent was refused, tool calls made, plan mode. */
  permissionDenials?: number;
  toolCalls?: number;
  planMode?: boolean;
}

/** What an adapter can read from its agent; "false" shows as "unknown" rather than a guess. */
export interface AgentCapabilities {
  structuredOutput: boolean;
  sessionId: boolean;
  tokens: boolean;
  /** The agent reports its own cost in USD (otherwise it is estimated from tokens, or unknown). */
  cost: boolean;
  rateLimitSignal: boolean;
  permissionDenials: boolean;
  /** Accepts the run's remaining budget (cost, turns) as flags. */
  budgetFlags: boolean;
}

export interface AgentOutputParser {
  onLine(line: string): void;
  result(): AgentOutput;
}

/**
 * One agent CLI. `invocation` is pure; the runner spawns it (src/proc) and feeds stdout lines to the
 * parser. Adding an agent: a folder under src/agents/ and one line in the registry.
 */
export interface AgentAdapter {
  name: string;
  description: string;
  /** The executable looked up on PATH at recon. */
  executable(ctx: Pick<AgentContext, 'agentCmd'>): string;
  invocation(ctx: AgentContext): AgentInvocation;
  createParser(): AgentOutputParser;
  capabilities: AgentCapabilities;
  /** What the exit code says that the output cannot (e.g. a documented "rate limited" code). */
  interpretExit?(exitCode: number | undefined, output: AgentOutput): AgentOutput;
}

/** The environment every implementer run gets on top of star-loop's own. */
export function starEnv(ctx: AgentContext): Record<string, string> {
  return {
    STAR_ITERATION: String(ctx.iteration),
    STAR_RUN_DIR: ctx.runDir,
    STAR_CLAIM_FILE: ctx.claimFile,
    STAR_STORY_ID: ctx.storyId ?? '',
    STAR_ROLE: ctx.role,
    ...(ctx.verdictFile ? { STAR_VERDICT_FILE: ctx.verdictFile } : {}),
  };
}
