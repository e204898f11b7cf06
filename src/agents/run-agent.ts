import { type ProcessResult, runProcess } from '../proc/run-process.js';
import { firstAgentStarted } from '../util/first-agent-started.js';
import type { AgentAdapter, AgentInvocation, AgentOutput } from './agent-adapter.js';
import type { AgentRunContext } from './agent-run-context.js';

/**
 * One agent process (implementer or verifier) as every agent runs: in the repository root, its output
 * streamed (redacted) to `logFile` and parsed line by line, bounded by the iteration and idle timeouts.
 */
export async function runAgent(
  ctx: AgentRunContext,
  adapter: AgentAdapter,
  invocation: AgentInvocation,
  options: {
    logFile: string;
    timeoutMs: number;
    onSpawn?: (pgid: number, tag: string) => Promise<void>;
    iteration: number;
    role: 'implementer' | 'verifier';
  },
): Promise<{ proc: ProcessResult; output: AgentOutput }> {
  const parser = adapter.createParser();
  const proc = await runProcess({
    command: invocation.command,
    args: invocation.args,
    env: invocation.env,
    input: invocation.input,
    cwd: ctx.root,
    logFile: options.logFile,
    onStdoutLine: (line) => {
      const activity = parser.onLine(line);
      // What the agent does is summarised (a tool call, a file), never dumped; --verbose streams it all.
      if (activity)
        ctx.emit({
          type: 'agent.activity',
          iteration: options.iteration,
          role: options.role,
          tool: activity.tool,
          text: activity.text,
        });
      ctx.agentLine?.(line);
    },
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: ctx.idleTimeoutMs,
    signal: ctx.signal,
    redactor: ctx.redactor,
    onSpawn: async (pgid, tag) => {
      firstAgentStarted();
      await options.onSpawn?.(pgid, tag);
    },
  });
  // Its log could not be written (the disk full): the run stops here, named (src/session/run-session.ts).
  if (proc.logError) throw proc.logError;
  return { proc, output: parser.result() };
}
