import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { LineSplitter } from './line-splitter.js';

/**
 * A long-running child that answers one line with one line (`git cat-file --batch-check`): a query costs
 * a pipe round trip instead of a process start. Requests are answered in order. The child never keeps
 * star-loop alive and exits when its stdin closes; if it dies, every pending and later request fails, so
 * the caller can fall back to spawning.
 */
export interface LineServer {
  ask(line: string): Promise<string>;
  /** A line the child answers nothing to (e.g. `update …` inside an update-ref transaction). */
  send(line: string): void;
  close(): void;
}

export function startLineServer(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): LineServer {
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: 'pipe',
  });
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  const streams = [child.stdin, child.stdout, child.stderr] as unknown as Array<{
    ref?: () => void;
    unref?: () => void;
  }>;
  // Held open only while an answer is awaited: idle, the runner exits as if the child were not there.
  const hold = (on: boolean) => {
    if (on) child.ref();
    else child.unref();
    for (const stream of streams) (on ? stream.ref : stream.unref)?.call(stream);
  };
  const splitter = new LineSplitter((line) => {
    waiting.shift()?.resolve(line);
    if (waiting.length === 0) hold(false);
  });
  child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
  child.on('error', fail);
  child.on('exit', () => fail(new Error(`${command} ${args[0] ?? ''} exited`)));
  child.stdin.on('error', fail);
  child.stderr.resume();
  hold(false);
  return {
    ask(line) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) hold(true);
        waiting.push({ resolve, reject });
        child.stdin.write(`${line}\n`);
      });
    },
    send(line) {
      if (!failure) child.stdin.write(`${line}\n`);
    },
    close() {
      child.stdin.end();
    },
  };
}
