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
  /** Where the prompt is also stored, for agents that take it as a file (aider, grok). */
  promptFile?: string;
  /** Credential-like variables the user lets through to every agent (--pass-env). */
  passEnv?: readonly string[];
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
  /** The model asked for, when the agent's output does not name the one that answered. */
  model?: string;
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

/**
 * What an agent needs inside the sandbox besides the work tree. Everything else under $HOME is a scratch
 * folder, and every other host is unreachable (--sandbox-allow-host, --sandbox-allow-write add more).
 */
export interface AgentSandboxNeeds {
  /** Its own config, auth and sessions under $HOME (writable). */
  home: readonly string[];
  /**
   * Environment variables naming folders or files of its own (writable), e.g. `CODEX_HOME`; `VAR/sub` is the
   * folder `sub` in the one VAR names (`XDG_CONFIG_HOME/opencode`: never all of ~/.config).
   */
  envPaths?: readonly string[];
  /** Its model's API hosts (port 443 unless given). */
  hosts: readonly string[];
  /** Environment variables holding the base URL of its API: that host is allowed too. */
  urlEnv?: readonly string[];
  /** Files of its own it runs from, wherever star-loop is installed (read-only; /tmp and $HOME are hidden). */
  files?: readonly string[];
}

/** One thing the agent did, summarised for the terminal: a tool call and what it touched. */
export interface AgentActivity {
  tool?: string;
  text: string;
}

/** A short, single-line summary of a tool's input: the command, or the file. */
export function summariseTool(name: string, input: unknown): AgentActivity {
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const target = [args.command, args.cmd, args.file_path, args.filePath, args.path, args.pattern].find(
    (v) => typeof v === 'string',
  ) as string | undefined;
  const short = target ? target.replace(/\s+/g, ' ').slice(0, 120) : '';
  return { tool: name, text: short ? `${name}: ${short}` : name };
}

export interface AgentOutputParser {
  /** Reads one line of stdout; returns what the agent did, when the line shows a tool call. */
  onLine(line: string): AgentActivity | undefined;
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
  /**
   * Credential-like environment variables (names matching `SECRET_NAME`) this agent may need, by name
   * pattern; every other credential stays out of its environment. `undefined`: the agent gets them all
   * (a user's own command).
   */
  credentials?: readonly RegExp[];
  /** What the agent needs inside the sandbox: its own folders, and its model's API hosts. */
  sandbox?: AgentSandboxNeeds;
  /** What the exit code says that the output cannot (e.g. a documented "rate limited" code). */
  interpretExit?(exitCode: number | undefined, output: AgentOutput): AgentOutput;
}

/** The environment every agent run gets on top of its (filtered) inherited one. */
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

/** Names that look like credentials: keys, tokens, secrets, passwords. */
export const SECRET_NAME =
  /(^|_)(API_?KEY|KEY|KEYS|TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|COOKIE|PRIVATE)(_|$)/i;

/** star-loop's own settings for agents (the push-blocking git config), whatever their names look like. */
const STAR_OWN = /^(GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)|STAR_[A-Z_]+)$/;

/** Provider key prefixes for agents that can talk to many providers (opencode, aider). */
const PROVIDERS = (
  'ANTHROPIC OPENAI AZURE GEMINI GOOGLE VERTEX AWS OPENROUTER GROQ XAI MISTRAL ' +
  'DEEPSEEK TOGETHER FIREWORKS COHERE PERPLEXITY CEREBRAS OLLAMA LITELLM HF HUGGINGFACE'
).split(' ');
export const PROVIDER_CREDENTIALS: readonly RegExp[] = [new RegExp(`^(${PROVIDERS.join('|')})_`)];

/**
 * The agent's environment: star-loop's own minus every credential-like variable the agent does not need
 * (a GITHUB_TOKEN, a cloud key for another provider, …), plus the `STAR_*` context. Pure.
 */
export function agentEnv(
  ctx: AgentContext,
  credentials: readonly RegExp[] | undefined,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  const pass = new Set(ctx.passEnv ?? []);
  for (const [name, value] of Object.entries(ctx.baseEnv)) {
    if (
      credentials &&
      SECRET_NAME.test(name) &&
      !STAR_OWN.test(name) &&
      !pass.has(name) &&
      !credentials.some((re) => re.test(name))
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...starEnv(ctx) };
}
