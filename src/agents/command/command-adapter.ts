import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { createTailTextParser } from '../tail-text-parser.js';

/** EX_TEMPFAIL from sysexits.h: the command agent's way to say "rate limited, try again later". */
export const RATE_LIMITED_EXIT = 75;

/**
 * Any command: `sh -c CMD` in the repository root, the prompt on stdin, star-loop's context in
 * STAR_* environment variables. The claim comes through STAR_CLAIM_FILE.
 */
export const commandAdapter: AgentAdapter = {
  name: 'command',
  description: 'any command (--agent-cmd "CMD"), run with sh -c in the repo root, prompt on stdin',
  executable: () => 'sh',
  // Plain text: nothing to read but the tail of stdout and the exit code.
  capabilities: {
    structuredOutput: false,
    sessionId: false,
    tokens: false,
    cost: false,
    rateLimitSignal: true,
    permissionDenials: false,
    budgetFlags: false,
  },
  // The command contract: exit 75 (EX_TEMPFAIL) means "rate limited or overloaded, try again later".
  interpretExit(exitCode, output) {
    if (exitCode !== RATE_LIMITED_EXIT) return output;
    return {
      ...output,
      isError: true,
      errorMessage: 'exit code 75: rate limited',
      rateLimit: { kind: 'rate-limit', detail: 'the command exited 75 (EX_TEMPFAIL): rate limited' },
    };
  },
  invocation(ctx) {
    if (!ctx.agentCmd) throw new Error('the command agent needs agentCmd');
    return {
      command: 'sh',
      args: ['-c', ctx.agentCmd],
      // Your own command: it gets your whole environment (it may wrap any agent with any key).
      env: agentEnv(ctx, undefined),
      model: ctx.model,
      input: ctx.prompt,
      display: `sh -c ${JSON.stringify(ctx.agentCmd)} < prompt`,
      notes: [],
    };
  },
  createParser: () => createTailTextParser(),
};
