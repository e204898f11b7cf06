import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createClaudeStreamParser } from './parse-claude-stream.js';

const BASE_ARGS = ['-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'];

/** Claude Code in print mode with stream-json output; the prompt goes on stdin. */
export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  description: 'Claude Code: claude -p --output-format stream-json --verbose --dangerously-skip-permissions',
  executable: () => 'claude',
  // The Anthropic API, or Bedrock / Vertex when Claude Code is set up for them.
  credentials: [/^ANTHROPIC_/, /^CLAUDE_/, /^AWS_/, /^GOOGLE_APPLICATION_CREDENTIALS$/],
  sandbox: {
    home: ['.claude', '.claude.json', '.claude.json.backup', '.config/claude'],
    envPaths: ['CLAUDE_CONFIG_DIR'],
    hosts: ['api.anthropic.com', 'claude.ai', 'console.anthropic.com'],
    urlEnv: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_BEDROCK_BASE_URL', 'ANTHROPIC_VERTEX_BASE_URL'],
  },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: true,
    cost: true,
    rateLimitSignal: true,
    permissionDenials: true,
    budgetFlags: true,
  },
  invocation(ctx) {
    const budget = ctx.budget ?? {};
    const args = [
      ...BASE_ARGS,
      ...(ctx.model ? ['--model', ctx.model] : []),
      ...(budget.maxTurns !== undefined ? ['--max-turns', String(budget.maxTurns)] : []),
      // Claude Code stops itself when this run alone would spend what is left of --max-cost.
      ...(budget.maxCostUsd !== undefined ? ['--max-budget-usd', budget.maxCostUsd.toFixed(4)] : []),
    ];
    const env = agentEnv(ctx, claudeAdapter.credentials);
    const notes: string[] = [];
    // Claude Code refuses --dangerously-skip-permissions as root unless IS_SANDBOX is exactly "1".
    if (process.getuid?.() === 0 && env.IS_SANDBOX !== '1') {
      notes.push(
        `running as root: IS_SANDBOX=1 set${env.IS_SANDBOX ? ` (it was "${env.IS_SANDBOX}")` : ''} so Claude Code ` +
          `accepts --dangerously-skip-permissions`,
      );
      env.IS_SANDBOX = '1';
    }
    return {
      command: 'claude',
      args,
      env,
      input: ctx.prompt,
      display: `claude ${args.join(' ')} < prompt`,
      notes,
      model: ctx.model,
    };
  },
  createParser: createClaudeStreamParser,
};
