import type { AgentAdapter } from '../agent-adapter.js';
import { starEnv } from '../agent-adapter.js';
import { createClaudeStreamParser } from './parse-claude-stream.js';

const BASE_ARGS = ['-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'];

/** Claude Code in print mode with stream-json output; the prompt goes on stdin. */
export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  description: 'Claude Code: claude -p --output-format stream-json --verbose --dangerously-skip-permissions',
  executable: () => 'claude',
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
    const env: Record<string, string | undefined> = { ...ctx.baseEnv, ...starEnv(ctx) };
    const notes: string[] = [];
    // Claude Code refuses --dangerously-skip-permissions as root unless it is told it runs in a sandbox.
    if (process.getuid?.() === 0 && !env.IS_SANDBOX) {
      env.IS_SANDBOX = '1';
      notes.push('running as root: IS_SANDBOX=1 set so Claude Code accepts --dangerously-skip-permissions');
    }
    return { command: 'claude', args, env, input: ctx.prompt, display: `claude ${args.join(' ')} < prompt`, notes };
  },
  createParser: createClaudeStreamParser,
};
