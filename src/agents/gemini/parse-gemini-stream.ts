import { type AgentActivity, type AgentOutput, type AgentOutputParser, summariseTool } from '../agent-adapter.js';
import { kindOfErrorMessage } from '../classify-failure.js';

interface GeminiEvent {
  type?: string;
  session_id?: string;
  model?: string;
  role?: string;
  content?: string;
  tool_name?: string;
  parameters?: unknown;
  status?: string;
  error?: { type?: string; message?: string };
  stats?: {
    input_tokens?: number;
    output_tokens?: number;
    cached?: number;
    tool_calls?: number;
    models?: Record<string, unknown>;
  };
}

/**
 * Gemini CLI's `--output-format stream-json`: the final message is the assistant text after the last tool
 * call (its deltas joined); the `result` event gives status, error and token stats. No cost is reported.
 */
export function createGeminiParser(): AgentOutputParser {
  let sessionId: string | undefined;
  let model: string | undefined;
  let text: string[] = [];
  let toolCalls = 0;
  let result: GeminiEvent | undefined;
  return {
    onLine(line): AgentActivity | undefined {
      if (!line.startsWith('{')) return;
      let event: GeminiEvent;
      try {
        event = JSON.parse(line) as GeminiEvent;
      } catch {
        return;
      }
      if (event.type === 'init') {
        sessionId = event.session_id;
        model = event.model;
      } else if (event.type === 'message' && event.role === 'assistant') text.push(event.content ?? '');
      else if (event.type === 'tool_use') {
        toolCalls += 1;
        text = [];
        return summariseTool(event.tool_name ?? 'tool', event.parameters);
      } else if (event.type === 'result') result = event;
      return undefined;
    },
    result(): AgentOutput {
      if (!result)
        return {
          finalMessage: '',
          isError: true,
          errorMessage: 'no result event in the stream',
          sessionId,
          model,
          toolCalls,
        };
      const failed = result.status !== 'success';
      const message = result.error?.message ?? (failed ? `status ${result.status ?? 'unknown'}` : undefined);
      const kind = failed && message ? kindOfErrorMessage(message) : undefined;
      const stats = result.stats;
      return {
        finalMessage: text.join(''),
        isError: failed,
        errorMessage: failed ? message : undefined,
        sessionId,
        model: Object.keys(stats?.models ?? {})[0] ?? model,
        inputTokens: stats?.input_tokens,
        outputTokens: stats?.output_tokens,
        cacheReadTokens: stats?.cached,
        toolCalls,
        rateLimit: kind && message ? { kind, detail: `${kind}: ${message.slice(0, 200)}` } : undefined,
      };
    },
  };
}
