import type { AgentOutput, AgentOutputParser } from '../agent-adapter.js';

interface ClaudeResultEvent {
  type: 'result';
  subtype?: string;
  is_error?: boolean;
  result?: string;
  session_id?: string;
  total_cost_usd?: number;
  api_error_status?: number;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
  permission_denials?: unknown[];
}

/**
 * Claude Code's `--output-format stream-json`: the final message is `result.result` and nothing else —
 * assistant text, tool output and prompt echoes never count. API failures arrive as `subtype: "success"`
 * with `is_error: true`, so `is_error` decides.
 */
export function createClaudeStreamParser(): AgentOutputParser {
  let final: ClaudeResultEvent | undefined;
  let sessionId: string | undefined;
  return {
    onLine(line) {
      if (!line.startsWith('{')) return;
      let event: { type?: string; session_id?: string };
      try {
        event = JSON.parse(line) as { type?: string; session_id?: string };
      } catch {
        return;
      }
      if (typeof event.session_id === 'string') sessionId = event.session_id;
      if (event.type === 'result') final = event as ClaudeResultEvent;
    },
    result(): AgentOutput {
      if (!final) return { finalMessage: '', isError: true, errorMessage: 'no result event in the stream', sessionId };
      const usage = final.usage ?? {};
      const isError = final.is_error === true || (final.subtype !== undefined && final.subtype !== 'success');
      const input = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
      return {
        finalMessage: typeof final.result === 'string' ? final.result : '',
        isError,
        errorMessage: isError
          ? `${final.subtype ?? 'error'}${final.api_error_status ? ` (API status ${final.api_error_status})` : ''}: ${(final.result ?? '').slice(0, 300)}`
          : undefined,
        sessionId: final.session_id ?? sessionId,
        costUsd: final.total_cost_usd,
        inputTokens: final.usage ? input : undefined,
        outputTokens: usage.output_tokens,
      };
    },
  };
}
