import type { RateLimitSignal } from './agent-adapter.js';

/** An HTTP status as a provider failure that is not the agent's: 429, 529, other 5xx. */
export function kindOfStatus(status: number | undefined): RateLimitSignal['kind'] | undefined {
  if (status === 429) return 'rate-limit';
  if (status === 529) return 'overloaded';
  if (status !== undefined && status >= 500 && status < 600) return 'outage';
  return undefined;
}

/**
 * For agents whose structured error carries only a message (Codex's `turn.failed`, Gemini's result
 * error): the status or words of the provider's failure in that field — never in tool output or text.
 */
export function kindOfErrorMessage(message: string): RateLimitSignal['kind'] | undefined {
  if (/\b429\b|rate.?limit|too many requests|quota|resource.?exhausted/i.test(message)) return 'rate-limit';
  if (/\b529\b|overloaded/i.test(message)) return 'overloaded';
  if (/\b5\d\d\b|high demand|service unavailable|internal server error|stream disconnected/i.test(message))
    return 'outage';
  return undefined;
}
