import { packageFile } from '../../util/package-root.js';
import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createTailTextParser } from '../tail-text-parser.js';

const DEMO_AGENT = packageFile('dist/demo/demo-agent.js');

/**
 * The built-in demo agent: a scripted stand-in for a language model that only knows the demo
 * repository's stories. It needs no API key and no network; `npm run demo` uses it.
 */
export const demoAdapter: AgentAdapter = {
  name: 'demo',
  description: 'scripted DEMO agent (no model): only knows the stories of `npm run demo`',
  executable: () => process.execPath,
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
    return {
      command: process.execPath,
      args: [DEMO_AGENT],
      env: agentEnv(ctx, []),
      input: ctx.prompt,
      display: 'demo agent (scripted, no language model)',
      notes: [],
    };
  },
  createParser: () => createTailTextParser(),
  sandbox: { home: [], hosts: [], files: [DEMO_AGENT] },
};
