import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createCodexParser } from './parse-codex-json.js';

/** Codex CLI: `codex exec --json`, approvals and sandbox off (star-loop's guard is the boundary), prompt on stdin. */
export const codexAdapter: AgentAdapter = {
  name: 'codex',
  description: 'Codex CLI: codex exec --json --dangerously-bypass-approvals-and-sandbox -',
  executable: () => 'codex',
  credentials: [/^OPENAI_/, /^CODEX_/, /^AZURE_OPENAI_/],
  sandbox: {
    home: ['.codex'],
    envPaths: ['CODEX_HOME'],
    hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
    urlEnv: ['OPENAI_BASE_URL'],
  },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: true,
    cost: false,
    rateLimitSignal: true,
    permissionDenials: false,
    budgetFlags: false,
  },
  invocation(ctx) {
    // `-` reads the prompt from stdin, which star-loop closes after writing it (Codex waits for EOF).
    const args = [
      'exec',
      '--json',
      '--dangerously-bypass-approvals-and-sandbox',
      ...(ctx.model ? ['-m', ctx.model] : []),
      '-',
    ];
    return {
      command: 'codex',
      args,
      env: agentEnv(ctx, codexAdapter.credentials),
      input: ctx.prompt,
      display: `codex ${args.join(' ')} < prompt`,
      notes: [],
      model: ctx.model,
    };
  },
  createParser: createCodexParser,
};
