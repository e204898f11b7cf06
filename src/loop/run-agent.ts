import type { AgentAdapter, AgentInvocation, AgentOutput } from '../agents/agent-adapter.js';
import { type ProcessResult, runProcess } from '../proc/run-process.js';
import type { LoopContext } from './loop-context.js';

/**
 * One agent process (implementer or verifier) as every agent runs: in the repository root, its output
 * streamed (redacted) to `logFile` and parsed line by line, bounded by the iteration and idle timeouts.
 */
export async function runAgent(
  ctx: LoopContext,
  adapter: AgentAdapter,
  invocation: AgentInvocation,
  options: { logFile: string; timeoutMs: number; onSpawn?: (pgid: number) => Promise<void> },
): Promise<{ proc: ProcessResult; output: AgentOutput }> {
  const parser = adapter.createParser();
  const proc = await runProcess({
    command: invocation.command,
    args: invocation.args,
    env: invocation.env,
    input: invocation.input,
    cwd: ctx.options.root,
    logFile: options.logFile,
    onStdoutLine: (line) => parser.onLine(line),
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: ctx.options.idleTimeoutMs,
    signal: ctx.signal,
    redactor: ctx.redactor,
    onSpawn: options.onSpawn,
  });
  return { proc, output: parser.result() };
}
