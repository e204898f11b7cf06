import type { AgentOutput, AgentOutputParser } from './agent-adapter.js';

/**
 * For agents that print plain text: the "final message" is the last `limit` characters of stdout, kept
 * line by line so memory stays bounded whatever the agent prints.
 */
export function createTailTextParser(limit = 16 * 1024): AgentOutputParser {
  const lines: string[] = [];
  let size = 0;
  return {
    onLine(line) {
      lines.push(line);
      size += line.length + 1;
      while (size > limit && lines.length > 1) size -= (lines.shift()?.length ?? 0) + 1;
      return undefined;
    },
    result(): AgentOutput {
      return { finalMessage: lines.join('\n'), isError: false };
    },
  };
}
