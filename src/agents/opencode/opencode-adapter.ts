import { type AgentAdapter, agentEnv, PROVIDER_CREDENTIALS } from '../agent-adapter.js';
import { createOpencodeParser } from './parse-opencode-json.js';

/** opencode: `opencode run --format json`, the prompt on stdin. */
export const opencodeAdapter: AgentAdapter = {
  name: 'opencode',
  description: 'opencode: opencode run --format json [-m provider/model]',
  executable: () => 'opencode',
  credentials: [/^OPENCODE_/, ...PROVIDER_CREDENTIALS],
  sandbox: {
    home: ['.local/share/opencode', '.config/opencode', '.cache/opencode', '.local/state/opencode'],
    envPaths: [
      'XDG_CONFIG_HOME/opencode',
      'XDG_DATA_HOME/opencode',
      'XDG_CACHE_HOME/opencode',
      'XDG_STATE_HOME/opencode',
      'OPENCODE_CONFIG',
    ],
    hosts: [
      'opencode.ai',
      'models.dev',
      'api.anthropic.com',
      'api.openai.com',
      'openrouter.ai',
      'generativelanguage.googleapis.com',
    ],
    urlEnv: ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL'],
  },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: true,
    cost: true,
    rateLimitSignal: true,
    permissionDenials: false,
    budgetFlags: false,
  },
  invocation(ctx) {
    const args = ['run', '--format', 'json', ...(ctx.model ? ['-m', ctx.model] : [])];
    return {
      command: 'opencode',
      args,
      env: agentEnv(ctx, opencodeAdapter.credentials),
      input: ctx.prompt,
      display: `opencode ${args.join(' ')} < prompt`,
      notes: [],
      // opencode names models provider/model; the price table knows the model part.
      model: ctx.model?.split('/').at(-1),
    };
  },
  createParser: createOpencodeParser,
};
