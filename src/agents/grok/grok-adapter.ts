import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createGrokParser } from './parse-grok-json.js';

/** xAI's Grok CLI, headless: the prompt from a file, tools approved, one JSON object at the end. */
export const grokAdapter: AgentAdapter = {
  name: 'grok',
  description: 'Grok CLI: grok --prompt-file FILE --output-format json --always-approve --no-auto-update',
  executable: () => 'grok',
  credentials: [/^XAI_/, /^GROK_/],
  sandbox: { home: ['.grok'], hosts: ['api.x.ai'], urlEnv: ['GROK_BASE_URL'] },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: false,
    cost: false,
    rateLimitSignal: false,
    permissionDenials: true,
    budgetFlags: false,
  },
  invocation(ctx) {
    if (!ctx.promptFile) throw new Error('the grok adapter needs the prompt as a file');
    const args = [
      '--prompt-file',
      ctx.promptFile,
      '--output-format',
      'json',
      '--always-approve',
      '--no-auto-update',
      ...(ctx.model ? ['-m', ctx.model] : []),
    ];
    return {
      command: 'grok',
      args,
      env: agentEnv(ctx, grokAdapter.credentials),
      display: `grok ${args.join(' ')}`,
      notes: [],
      model: ctx.model,
    };
  },
  createParser: () => createGrokParser(),
};
