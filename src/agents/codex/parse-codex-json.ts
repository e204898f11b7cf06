import { type AgentActivity, type AgentOutput, type AgentOutputParser, summariseTool } from '../agent-adapter.js';
import { kindOfErrorMessage } from '../classify-failure.js';

interface CodexEvent {
  type?: string;
  thread_id?: string;
  item?: { type?: string; text?: string; command?: string; changes?: Array<{ path?: string; kind?: string }> };
  usage?: {
    input_tokens?: number;
    cached_input_tokens?: number;
    cache_write_input_tokens?: number;
    output_tokens?: number;
  };
  error?: { message?: string };
}

const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search']);

/**
 * Codex CLI's `exec --json`: the final message is the last `agent_message` item; tokens from
 * `turn.completed`; a run that ends with `turn.failed` is an error (a 429 or "rate limit" in its message is
 * the provider's). No cost is reported.
 */
export function createCodexParser(): AgentOutputParser {
  let sessionId: string | undefined;
  let final = '';
  let failure: string | undefined;
  let completed = false;
  let toolCalls = 0;
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, seen: false };
  return {
    onLine(line): AgentActivity | undefined {
      if (!line.startsWith('{')) return;
      let event: CodexEvent;
      try {
        event = JSON.parse(line) as CodexEvent;
      } catch {
        return;
      }
      if (event.type === 'thread.started' && event.thread_id) sessionId = event.thread_id;
      else if (event.type === 'item.completed' && event.item?.type === 'agent_message') final = event.item.text ?? '';
      else if (event.type === 'item.completed' && event.item?.type && TOOL_ITEMS.has(event.item.type)) toolCalls += 1;
      else if (event.type === 'turn.completed') {
        completed = true;
        failure = undefined;
        const u = event.usage ?? {};
        tokens.seen = true;
        tokens.input += u.input_tokens ?? 0;
        tokens.output += u.output_tokens ?? 0;
        tokens.cacheRead += u.cached_input_tokens ?? 0;
        tokens.cacheWrite += u.cache_write_input_tokens ?? 0;
      } else if (event.type === 'turn.failed') failure = event.error?.message ?? 'turn failed';
      if (event.type === 'item.started' && event.item?.type === 'command_execution')
        return summariseTool('shell', { command: event.item.command });
      if (event.type === 'item.completed' && event.item?.type === 'file_change')
        return {
          tool: 'edit',
          text: `edit: ${(event.item.changes ?? []).map((c) => `${c.kind ?? ''} ${c.path ?? ''}`.trim()).join(', ')}`,
        };
      return undefined;
    },
    result(): AgentOutput {
      const error = failure ?? (completed ? undefined : 'no turn.completed event in the stream');
      const kind = failure ? kindOfErrorMessage(failure) : undefined;
      return {
        finalMessage: final,
        isError: error !== undefined,
        errorMessage: error,
        sessionId,
        inputTokens: tokens.seen ? tokens.input : undefined,
        outputTokens: tokens.seen ? tokens.output : undefined,
        cacheReadTokens: tokens.seen ? tokens.cacheRead : undefined,
        cacheWriteTokens: tokens.seen ? tokens.cacheWrite : undefined,
        toolCalls,
        rateLimit: kind && failure ? { kind, detail: `${kind}: ${failure.slice(0, 200)}` } : undefined,
      };
    },
  };
}
