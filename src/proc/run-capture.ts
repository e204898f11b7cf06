import { execFile } from 'node:child_process';

export interface Captured {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a short command to completion and captures its output (git plumbing, mostly). Never throws on exit
 * codes. Plain `execFile`, not execa: this is on every command's start-up path (recon, `--dry-run`,
 * `status`), where loading execa alone would cost about 100 ms.
 */
export function runCapture(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; input?: string },
): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env as NodeJS.ProcessEnv | undefined,
        maxBuffer: 512 * 1024 * 1024,
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 0,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ exitCode: 0, stdout, stderr });
        const failure = error as NodeJS.ErrnoException & { code?: number | string; killed?: boolean; signal?: string };
        if (failure.killed && options.timeoutMs) return resolve({ exitCode: 124, stdout, stderr: 'timed out' });
        // A command that could not start at all (not found, not executable) is an error of its own.
        if (typeof failure.code === 'string') return reject(error);
        resolve({ exitCode: typeof failure.code === 'number' ? failure.code : 1, stdout, stderr });
      },
    );
    child.stdin?.end(options.input);
  });
}
