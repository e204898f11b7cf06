import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { LineSplitter } from './line-splitter.js';

/**
 * A long-running child that answers each request line, in order: a query costs a pipe round trip instead of a
 * process start. The child never keeps star-loop alive and exits when its stdin closes; if it dies, every
 * pending and later request fails, so the caller can fall back to spawning. So does a request left unanswered
 * past the deadline: the child is killed then, so one that hangs cannot hold the run.
 */
export interface AnswerServer<T> {
  /** `end`: what ends the request (a newline; `''` when the request carries its own end, e.g. NUL-framed). */
  ask(line: string, end?: string): Promise<T>;
  /** A line the child answers nothing to (e.g. `update …` inside an update-ref transaction). */
  send(line: string): void;
  close(): void;
}

/** One line answered with one line (`git cat-file --batch-check`). */
export type LineServer = AnswerServer<string>;

/**
 * How a child's answers are framed: given `answer` (which settles the oldest request), the function that
 * reads each chunk of the child's stdout.
 */
export type Framer<T> = (answer: (value: T) => void) => (chunk: Buffer) => void;

/** Where the child runs; `deadlineMs`: how long the oldest request may wait for its answer. */
export interface AnswerServerOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  deadlineMs?: number;
}

/** Git answers these requests in milliseconds; minutes of silence mean it never will (a request it misread). */
const DEADLINE_MS = 30_000;

export function startLineServer(command: string, args: string[], options: AnswerServerOptions): LineServer {
  return startAnswerServer<string>(command, args, options, (answer) => {
    const splitter = new LineSplitter(answer);
    return (chunk) => splitter.push(chunk);
  });
}

export function startAnswerServer<T>(
  command: string,
  args: string[],
  options: AnswerServerOptions,
  framer: Framer<T>,
): AnswerServer<T> {
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: 'pipe',
  });
  const waiting: Array<{ resolve: (value: T) => void; reject: (error: Error) => void }> = [];
  let failure: Error | undefined;
  let late: NodeJS.Timeout | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    clearTimeout(late);
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  const deadlineMs = options.deadlineMs ?? DEADLINE_MS;
  // The oldest request's clock: restarted with each answer, stopped when none is awaited.
  const watch = () => {
    clearTimeout(late);
    late =
      waiting.length === 0
        ? undefined
        : setTimeout(() => {
            fail(new Error(`${command} ${args.join(' ')}: no answer in ${deadlineMs} ms`));
            child.kill('SIGKILL');
          }, deadlineMs);
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
  const read = framer((value) => {
    waiting.shift()?.resolve(value);
    if (waiting.length === 0) hold(false);
    watch();
  });
  child.stdout.on('data', read);
  child.on('error', fail);
  child.on('exit', () => fail(new Error(`${command} ${args[0] ?? ''} exited`)));
  child.stdin.on('error', fail);
  child.stderr.resume();
  hold(false);
  return {
    ask(line, end = '\n') {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) hold(true);
        waiting.push({ resolve, reject });
        if (waiting.length === 1) watch();
        child.stdin.write(`${line}${end}`);
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
