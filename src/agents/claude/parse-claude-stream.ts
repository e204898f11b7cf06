import {
  type AgentActivity,
  type AgentOutput,
  type AgentOutputParser,
  type RateLimitSignal,
  summariseTool,
} from '../agent-adapter.js';

interface ClaudeResultEvent {
  type: 'result';
  subtype?: string;
  is_error?: boolean;
  result?: string;
  session_id?: string;
  total_cost_usd?: number;
  api_error_status?: number | null;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
    // Cursor's spelling.
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
  };
  modelUsage?: Record<string, unknown>;
  permission_denials?: unknown[];
}

interface ClaudeEvent {
  type?: string;
  subtype?: string;
  session_id?: string;
  model?: string;
  permissionMode?: string;
  error?: string;
  error_status?: number | null;
  message?: { model?: string; content?: Array<{ type?: string; name?: string; input?: unknown }> };
  tool_call?: Record<string, { args?: unknown }>;
  rate_limit_info?: { status?: string; resetsAt?: number; rateLimitType?: string };
}

const PLAN_TOOLS = new Set(['ExitPlanMode', 'EnterPlanMode']);

/** An API failure's HTTP status (or Claude's error class) as a rate-limit signal; other failures are not. */
function classify(
  status: number | null | undefined,
  errorClass: string | undefined,
): RateLimitSignal['kind'] | undefined {
  if (status === 429) return 'rate-limit';
  if (status === 529) return 'overloaded';
  if (typeof status === 'number' && status >= 500) return 'outage';
  if (typeof status === 'number') return undefined;
  if (errorClass === 'rate_limit') return 'rate-limit';
  if (errorClass === 'overloaded') return 'overloaded';
  if (errorClass === 'server_error') return 'outage';
  return undefined;
}

/** What the stream showed before its result event. */
interface Seen {
  sessionId?: string;
  model?: string;
  toolCalls: number;
  planMode: boolean;
  /** Claude's error class from a synthetic message or an api_retry event, and the retried HTTP status. */
  errorClass?: string;
  retryStatus?: number;
  /** A rate_limit_event with status `rejected`: when the limit lifts, and which limit. */
  rejected?: { resetAt?: number; type?: string };
}

/** One event of the stream into what was seen; returns the tool call it shows, if any. */
function fold(seen: Seen, event: ClaudeEvent): AgentActivity | undefined {
  let activity: AgentActivity | undefined;
  if (typeof event.session_id === 'string') seen.sessionId = event.session_id;
  switch (event.type) {
    case 'system':
      if (event.subtype === 'init') {
        if (typeof event.model === 'string') seen.model = event.model;
        if (event.permissionMode === 'plan') seen.planMode = true;
      } else if (event.subtype === 'api_retry') {
        seen.errorClass = event.error;
        seen.retryStatus = event.error_status ?? undefined;
      }
      break;
    case 'assistant':
      if (typeof event.error === 'string') seen.errorClass = event.error;
      if (event.message?.model && event.message.model !== '<synthetic>') seen.model = event.message.model;
      for (const block of event.message?.content ?? []) {
        if (block.type !== 'tool_use') continue;
        seen.toolCalls += 1;
        if (block.name && PLAN_TOOLS.has(block.name)) seen.planMode = true;
        activity = summariseTool(block.name ?? 'tool', block.input);
      }
      break;
    // Cursor's stream-json (the same shape otherwise) reports tool calls as events of their own.
    case 'tool_call':
      if (event.subtype === 'started') {
        seen.toolCalls += 1;
        const [name, call] = Object.entries(event.tool_call ?? {})[0] ?? ['tool', {}];
        activity = summariseTool(name.replace(/ToolCall$/, ''), call.args);
      }
      break;
    case 'rate_limit_event':
      if (event.rate_limit_info?.status === 'rejected') {
        const resetsAt = event.rate_limit_info.resetsAt;
        seen.rejected = {
          resetAt: typeof resetsAt === 'number' ? resetsAt * 1000 : undefined,
          type: event.rate_limit_info.rateLimitType,
        };
      }
      break;
  }
  return activity;
}

/** The run's outcome from its result event (and what the stream showed before it). */
function outputOf(final: ClaudeResultEvent | undefined, seen: Seen): AgentOutput {
  const { sessionId, model, toolCalls, planMode, rejected } = seen;
  if (!final)
    return {
      finalMessage: '',
      isError: true,
      errorMessage: 'no result event in the stream',
      sessionId,
      model,
      toolCalls,
      planMode,
    };
  const usage = final.usage ?? {};
  const isError = final.is_error === true || (final.subtype !== undefined && final.subtype !== 'success');
  const cacheRead = usage.cache_read_input_tokens ?? usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? usage.cacheWriteTokens ?? 0;
  const text = typeof final.result === 'string' ? final.result : '';
  const status = final.api_error_status;
  // Max turns and max budget are the run's own limits; only an API failure ("success" + is_error) is the provider's.
  const apiFailure = final.subtype === undefined || final.subtype === 'success';
  const kind = !apiFailure
    ? undefined
    : rejected
      ? 'rate-limit'
      : classify(status ?? seen.retryStatus, seen.errorClass);
  const limitDetail = `${kind}${status ? ` (HTTP ${status})` : ''}${
    rejected?.type ? ` (${rejected.type} limit)` : ''
  }: ${text.slice(0, 200)}`;
  return {
    finalMessage: text,
    isError,
    errorMessage: isError
      ? `${final.subtype ?? 'error'}${status ? ` (API status ${status})` : ''}: ${text.slice(0, 300)}`
      : undefined,
    sessionId: final.session_id ?? sessionId,
    model: model ?? Object.keys(final.modelUsage ?? {})[0],
    costUsd: final.total_cost_usd,
    inputTokens: final.usage ? (usage.input_tokens ?? usage.inputTokens ?? 0) + cacheWrite + cacheRead : undefined,
    outputTokens: usage.output_tokens ?? usage.outputTokens,
    cacheReadTokens: final.usage ? cacheRead : undefined,
    cacheWriteTokens: final.usage ? cacheWrite : undefined,
    rateLimit: isError && kind ? { kind, resetAt: rejected?.resetAt, detail: limitDetail } : undefined,
    permissionDenials: Array.isArray(final.permission_denials) ? final.permission_denials.length : undefined,
    toolCalls,
    planMode,
  };
}

/**
 * Claude Code's `--output-format stream-json`: the final message is `result.result` and nothing else —
 * assistant text, tool output and prompt echoes never count. API failures arrive as `subtype: "success"`
 * with `is_error: true`, so `is_error` decides; whether a failure was a rate limit or an overload comes
 * from structured fields only (`api_error_status`, the synthetic message's `error`, `api_retry`,
 * `rate_limit_event` with status `rejected`), never from text.
 */
export function createClaudeStreamParser(): AgentOutputParser {
  let final: ClaudeResultEvent | undefined;
  const seen: Seen = { toolCalls: 0, planMode: false };
  return {
    onLine(line) {
      if (!line.startsWith('{')) return undefined;
      let event: ClaudeEvent;
      try {
        event = JSON.parse(line) as ClaudeEvent;
      } catch {
        return undefined;
      }
      if (event.type === 'result') {
        if (typeof event.session_id === 'string') seen.sessionId = event.session_id;
        final = event as unknown as ClaudeResultEvent;
        return undefined;
      }
      return fold(seen, event);
    },
    result: () => outputOf(final, seen),
  };
}
