import { spawn } from 'node:child_process';

export interface PipedStep {
  command: string;
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `first | second` (bytes, never decoded: a git pack from one repository into another), `input` on the
 * first's stdin. Resolves with both exit codes and their stderr; never throws on exit codes, only when a
 * command cannot start.
 */
export function runPiped(
  first: PipedStep,
  second: PipedStep,
  input: string,
): Promise<{ exitCodes: [number, number]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const a = spawn(first.command, first.args, { cwd: first.cwd, env: first.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const b = spawn(second.command, second.args, {
      cwd: second.cwd,
      env: second.env,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    const codes: Array<number | undefined> = [undefined, undefined];
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      a.kill('SIGKILL');
      b.kill('SIGKILL');
      reject(error);
    };
    const exited = (i: 0 | 1) => (code: number | null) => {
      codes[i] = code ?? 1;
      if (!failed && codes[0] !== undefined && codes[1] !== undefined)
        resolve({ exitCodes: [codes[0], codes[1]], stderr });
    };
    for (const child of [a, b]) {
      child.on('error', fail);
      child.stderr?.on('data', (chunk: Buffer) => {
        if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
      });
    }
    // A side that dies early closes the pipe: the other's EPIPE is its exit code, not an exception here.
    a.stdout?.pipe(b.stdin as NodeJS.WritableStream).on('error', () => {});
    b.stdin?.on('error', () => {});
    a.stdin?.on('error', () => {});
    a.on('close', exited(0));
    b.on('close', exited(1));
    a.stdin?.end(input);
  });
}
