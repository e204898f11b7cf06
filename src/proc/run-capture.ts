import { execa } from 'execa';

export interface Captured {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a short command to completion and captures its output (git plumbing, mostly). Never throws on exit codes. */
export async function runCapture(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<Captured> {
  const result = await execa(command, args, {
    cwd: options.cwd,
    env: options.env,
    reject: false,
    stdin: 'ignore',
    stripFinalNewline: false,
    maxBuffer: 512 * 1024 * 1024,
    ...(options.timeoutMs ? { timeout: options.timeoutMs, forceKillAfterDelay: 1000 } : {}),
  });
  if (result.timedOut) return { exitCode: 124, stdout: String(result.stdout ?? ''), stderr: 'timed out' };
  if (result.exitCode === undefined && result.cause) throw result.cause;
  return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
