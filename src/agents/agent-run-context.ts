import type { ModelPrice } from '../usage/price-table.js';

/** What running an agent reports as it goes (the loop adds them to its events). */
export type AgentEvent =
  | { type: 'agent.activity'; iteration: number; role: 'implementer' | 'verifier'; tool?: string; text: string }
  | {
      type: 'agent.rate-limited';
      iteration: number;
      agent: string;
      attempt: number;
      detail: string;
      /** The agent the next attempt runs, and how long star-loop waits before it. */
      next: string;
      waitMs: number;
      resetAt?: string;
    };

/** The part of a run's state that running agents reads and writes (the run state has these fields). */
export interface AgentRunState {
  /** Agents the provider rate-limited, and until when (epoch ms): the fallback runs until then. */
  limitedUntil: Record<string, number>;
  /**
   * The iteration under way: the agent's process group (so a runner killed with -9 leaves it for the next one
   * to end), and while a rate limit is waited out, when the next attempt starts (ISO).
   */
  current?: { pgid?: number; processTag?: string; waitingUntil?: string };
}

/**
 * Everything running an agent needs from the run, and nothing more: adapters stay pure descriptions, and
 * the loop and the verifier only ask for a run.
 */
export interface AgentRunContext {
  /** The repository root: every agent runs there. */
  root: string;
  /** Stop at once: the agent's whole process group ends. */
  signal: AbortSignal;
  /** Stop gently: the agent runs, but no rate limit is waited out. */
  stopRequested: AbortSignal;
  /** Credential values, scrubbed from the agent's log. */
  redactor: { redact: (text: string) => string; longest: number };
  /** End an agent that prints nothing for this long. */
  idleTimeoutMs?: number;
  /** The longest one call waits out rate limits, and the backoff between attempts when no reset time is given. */
  maxWaitMs: number;
  backoff: { initialMs: number; maxMs: number };
  /** The price table, for agents that report tokens but no cost. */
  prices: Readonly<Record<string, ModelPrice>>;
  state: AgentRunState;
  emit: (event: AgentEvent) => void;
  /** --verbose: every line an agent prints. */
  agentLine?: (line: string) => void;
}
