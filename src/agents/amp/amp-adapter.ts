import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createClaudeStreamParser } from '../claude/parse-claude-stream.js';

/** Amp: execute mode with Claude Code–compatible stream JSON; the prompt on stdin. */
export const ampAdapter: AgentAdapter = {
  name: 'amp',
  description: 'Amp: amp --execute --stream-json --dangerously-allow-all (Claude Code–compatible stream JSON)',
  executable: () => 'amp',
  credentials: [/^AMP_/],
  sandbox: { home: ['.config/amp', '.local/share/amp', '.cache/amp'], hosts: ['ampcode.com'], urlEnv: ['AMP_URL'] },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: true,
    cost: false,
    rateLimitSignal: true,
    permissionDenials: true,
    budgetFlags: false,
  },
  invocation(ctx) {
    const args = ['--execute', '--stream-json', '--dangerously-allow-all'];
    return {
      command: 'amp',
      args,
      env: agentEnv(ctx, ampAdapter.credentials),
      input: ctx.prompt,
      display: `amp ${args.join(' ')} < prompt`,
      notes: ctx.model ? [`amp chooses its own model: --model ${ctx.model} is not passed`] : [],
    };
  },
  createParser: createClaudeStreamParser,
};
