import { type AgentAdapter, agentEnv, PROVIDER_CREDENTIALS } from '../agent-adapter.js';
import { createTailTextParser } from '../tail-text-parser.js';

/** aider, one message and exit: it prints plain text only, so cost, tokens and rate limits are unknown. */
export const aiderAdapter: AgentAdapter = {
  name: 'aider',
  description: 'aider: aider --message-file FILE --yes-always --no-pretty --no-stream --no-check-update (plain text)',
  executable: () => 'aider',
  credentials: [/^AIDER_/, ...PROVIDER_CREDENTIALS],
  sandbox: {
    home: ['.aider', '.cache/aider'],
    hosts: [
      'api.anthropic.com',
      'api.openai.com',
      'openrouter.ai',
      'generativelanguage.googleapis.com',
      'api.deepseek.com',
    ],
    urlEnv: ['OPENAI_API_BASE', 'ANTHROPIC_BASE_URL'],
  },
  capabilities: {
    structuredOutput: false,
    sessionId: false,
    tokens: false,
    cost: false,
    rateLimitSignal: false,
    permissionDenials: false,
    budgetFlags: false,
  },
  invocation(ctx) {
    if (!ctx.promptFile) throw new Error('the aider adapter needs the prompt as a file');
    const args = [
      '--message-file',
      ctx.promptFile,
      '--yes-always',
      '--no-pretty',
      '--no-stream',
      '--no-check-update',
      ...(ctx.model ? ['--model', ctx.model] : []),
    ];
    return {
      command: 'aider',
      args,
      env: agentEnv(ctx, aiderAdapter.credentials),
      display: `aider ${args.join(' ')}`,
      notes: [],
      model: ctx.model,
    };
  },
  createParser: () => createTailTextParser(),
};
