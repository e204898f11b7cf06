import type { AgentOutput, AgentOutputParser } from '../agent-adapter.js';

/**
 * Grok CLI's `--output-format json`: one object at the end, `{text, stopReason, sessionId}`. A
 * `Cancelled` stop means a tool call hit a permission gate headless. Output is kept bounded while read.
 */
export function createGrokParser(limit = 1024 * 1024): AgentOutputParser {
  let buffer = '';
  return {
    onLine(line) {
      buffer += `${line}\n`;
      if (buffer.length > limit) buffer = buffer.slice(-limit);
      return undefined;
    },
    result(): AgentOutput {
      const start = buffer.lastIndexOf('\n{', buffer.length - 2);
      for (const candidate of [buffer.slice(start + 1), buffer]) {
        try {
          const parsed = JSON.parse(candidate.trim()) as {
            text?: string;
            stopReason?: string;
            sessionId?: string;
            error?: string;
          };
          const cancelled = parsed.stopReason === 'Cancelled';
          return {
            finalMessage: parsed.text ?? '',
            isError: Boolean(parsed.error),
            errorMessage: parsed.error,
            sessionId: parsed.sessionId,
            permissionDenials: cancelled ? 1 : 0,
          };
        } catch {
          // try the whole output next
        }
      }
      return { finalMessage: '', isError: true, errorMessage: 'no JSON result in the output' };
    },
  };
}
