import { type AgentAdapter, starEnv } from '../agent-adapter.js';
import { createTailTextParser } from '../tail-text-parser.js';

/**
 * Any command: `sh -c CMD` in the repository root, the prompt on stdin, star-loop's context in
 * STAR_* environment variables. The claim comes through STAR_CLAIM_FILE.
 */
export const commandAdapter: AgentAdapter = {
  name: 'command',
  description: 'any command (--agent-cmd "CMD"), run with sh -c in the repo root, prompt on stdin',
  executable: () => 'sh',
  invocation(ctx) {
    if (!ctx.agentCmd) throw new Error('the command agent needs agentCmd');
    return {
      command: 'sh',
      args: ['-c', ctx.agentCmd],
      env: { ...ctx.baseEnv, ...starEnv(ctx) },
      input: ctx.prompt,
      display: `sh -c ${JSON.stringify(ctx.agentCmd)} < prompt`,
      notes: [],
    };
  },
  createParser: () => createTailTextParser(),
};
