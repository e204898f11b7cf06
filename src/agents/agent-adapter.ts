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

/** What the adapter read from the agent's output: the final message only, never the whole stream. */
export interface AgentOutput {
  finalMessage: string;
  isError: boolean;
  errorMessage?: string;
  sessionId?: string;
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
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
