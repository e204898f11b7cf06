import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createClaudeStreamParser } from '../claude/parse-claude-stream.js';

/** Cursor's agent CLI in print mode; its stream-json has Claude Code's shape (result.result is the answer). */
export const cursorAdapter: AgentAdapter = {
  name: 'cursor-agent',
  description: 'Cursor: cursor-agent -p --output-format stream-json --force [--model M] PROMPT',
  executable: () => 'cursor-agent',
  credentials: [/^CURSOR_/],
  sandbox: { home: ['.cursor', '.config/cursor'], hosts: ['api2.cursor.sh', 'api3.cursor.sh', 'api.cursor.com'] },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: true,
    cost: false,
    rateLimitSignal: false,
    permissionDenials: false,
    budgetFlags: false,
  },
  invocation(ctx) {
    // cursor-agent takes the prompt as an argument only; stdin is /dev/null.
    const args = ['-p', '--output-format', 'stream-json', '--force', ...(ctx.model ? ['--model', ctx.model] : [])];
    return {
      command: 'cursor-agent',
      args: [...args, ctx.prompt],
      env: agentEnv(ctx, cursorAdapter.credentials),
      display: `cursor-agent ${args.join(' ')} PROMPT`,
      notes: [],
      model: ctx.model,
    };
  },
  createParser: createClaudeStreamParser,
};
