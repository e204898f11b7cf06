import { type AgentActivity, type AgentOutput, type AgentOutputParser, summariseTool } from '../agent-adapter.js';
import { kindOfStatus } from '../classify-failure.js';

interface OpencodeEvent {
  type?: string;
  sessionID?: string;
  part?: {
    text?: string;
    tool?: string;
    state?: { input?: unknown };
    reason?: string;
    tokens?: { input?: number; output?: number; cache?: { read?: number; write?: number } };
    cost?: number;
  };
  error?: { name?: string; data?: { message?: string; statusCode?: number } };
}

/**
 * opencode's `run --format json`: the final message is the text parts of the last step that has any;
 * tokens and cost are summed over `step_finish` events (a cost of 0 with tokens means no price is
 * configured: unknown, not free); an `error` event is a failure, its `statusCode` tells a rate limit.
 */
export function createOpencodeParser(): AgentOutputParser {
  let sessionId: string | undefined;
  let step: string[] = [];
  let final = '';
  let toolCalls = 0;
  let error: OpencodeEvent['error'];
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, seen: false };
  return {
    onLine(line): AgentActivity | undefined {
      if (!line.startsWith('{')) return;
      let event: OpencodeEvent;
      try {
        event = JSON.parse(line) as OpencodeEvent;
      } catch {
        return;
      }
      if (event.sessionID) sessionId = event.sessionID;
      switch (event.type) {
        case 'step_start':
          step = [];
          break;
        case 'text':
          step.push(event.part?.text ?? '');
          if (step.join('').trim()) final = step.join('');
          break;
        case 'tool_use':
          toolCalls += 1;
          return summariseTool(event.part?.tool ?? 'tool', event.part?.state?.input);
        case 'step_finish': {
          const t = event.part?.tokens;
          usage.seen = true;
          usage.input += (t?.input ?? 0) + (t?.cache?.read ?? 0) + (t?.cache?.write ?? 0);
          usage.output += t?.output ?? 0;
          usage.cacheRead += t?.cache?.read ?? 0;
          usage.cacheWrite += t?.cache?.write ?? 0;
          usage.cost += event.part?.cost ?? 0;
          break;
        }
        case 'error':
          error = event.error ?? { name: 'error' };
          break;
      }
    },
    result(): AgentOutput {
      const message = error ? `${error.name ?? 'error'}: ${error.data?.message ?? ''}`.trim() : undefined;
      const kind = kindOfStatus(error?.data?.statusCode);
      const tokens = usage.input + usage.output;
      return {
        finalMessage: error ? '' : final,
        isError: Boolean(error),
        errorMessage: message,
        sessionId,
        inputTokens: usage.seen ? usage.input : undefined,
        outputTokens: usage.seen ? usage.output : undefined,
        cacheReadTokens: usage.seen ? usage.cacheRead : undefined,
        cacheWriteTokens: usage.seen ? usage.cacheWrite : undefined,
        costUsd: usage.cost > 0 || (usage.seen && tokens === 0) ? usage.cost : undefined,
        toolCalls,
        rateLimit:
          kind && message
            ? { kind, detail: `${kind} (HTTP ${error?.data?.statusCode}): ${message.slice(0, 200)}` }
            : undefined,
      };
    },
  };
}
