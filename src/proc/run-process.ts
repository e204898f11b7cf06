import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { execa } from 'execa';
import { CappedLog } from './capped-log.js';
import { endTagged, PROCESS_TAG_ENV } from './end-tagged.js';
import { LineSplitter } from './line-splitter.js';
import { TailBuffer } from './tail-buffer.js';

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Text written to stdin, which is then closed; undefined means stdin is /dev/null. */
  input?: string;
  /** stdout and stderr are appended here as they arrive, never held whole in memory. */
  logFile: string;
  /** Called for each complete stdout line (stderr is logged, not parsed). */
  onStdoutLine?: (line: string) => void;
  timeoutMs?: number;
  /** End the process group when it prints nothing (stdout or stderr) for this long. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** How much of the combined output to keep for quoting. */
  tailBytes?: number;
  /** Between TERM and KILL when the process group has to be ended. */
  graceMs?: number;
  /** Applied to what is written to the log and the tail (never to what the parser reads). */
  redactor?: { redact: (text: string) => string; longest: number };
  /**
   * A Node child with an IPC channel (a fleet's worker): each message it sends, and a way to answer. When
   * this process dies, the channel closes and the child hears of it.
   */
  ipc?: (message: unknown, reply: (answer: unknown) => void) => void;
  /** At most this much of the output goes to the log: its first and last halves (src/proc/capped-log.ts). */
  maxLogBytes?: number;
  /**
   * Told the child's process group id and its environment tag (PROCESS_TAG_ENV) as soon as it runs: what a
   * runner that dies leaves running is found by the tag (src/loop/recover-interrupted.ts).
   */
  onSpawn?: (pgid: number, tag: string) => void | Promise<void>;
}

export interface ProcessResult {
  exitCode?: number;
  signal?: string;
  timedOut: boolean;
  /** Ended by the idle timeout (no output for too long); `timedOut` is set too. */
  idle: boolean;
  aborted: boolean;
  /** The process could not be started at all (e.g. command not found by the OS). */
  spawnError?: string;
  /** Its output could not be written to the log (the disk full): the run cannot go on safely. */
  logError?: NodeJS.ErrnoException;
  durationMs: number;
  tail: string;
  skippedLongLines: number;
}

/**
 * Redacts secrets from a byte stream that may split them across chunks: everything but the last
 * `longest - 1` characters is released each time, so a secret is always seen whole before it is written.
 */
function redactingFilter(redactor: { redact: (text: string) => string; longest: number }) {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  const keep = redactor.longest - 1;
  return {
    write(chunk: Buffer): Buffer {
      const text = redactor.redact(carry + decoder.write(chunk));
      const cut = Math.max(0, text.length - keep);
      carry = text.slice(cut);
      return Buffer.from(text.slice(0, cut));
    },
    end(): Buffer {
      const rest = redactor.redact(carry + decoder.end());
      carry = '';
      return Buffer.from(rest);
    },
  };
}

/** Signals one process (a fleet's worker, which ends its own agent); quiet when it is gone. */
export function signalProcess(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/** Signals a whole process group (an agent and everything it started); quiet when it is gone. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid) signalProcess(-pid, signal);
}

/**
 * Ends a process group when asked, when the time runs out, or when it goes quiet for too long: TERM, then
 * KILL after a grace period. `arm` restarts the quiet clock (output arrived).
 */
class GroupEnder {
  timedOut = false;
  idle = false;
  aborted = false;
  private idleTimer?: NodeJS.Timeout;
  private killTimer?: NodeJS.Timeout;
  private readonly timer?: NodeJS.Timeout;
  private readonly onAbort = () => {
    this.aborted = true;
    this.end();
  };

  constructor(
    private readonly pid: number | undefined,
    private readonly spec: Pick<ProcessSpec, 'timeoutMs' | 'idleTimeoutMs' | 'signal' | 'graceMs'>,
  ) {
    if (spec.timeoutMs) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.end();
      }, spec.timeoutMs);
    }
    this.arm();
    spec.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (spec.signal?.aborted) this.onAbort();
  }

  arm(): void {
    if (!this.spec.idleTimeoutMs) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idle = true;
      this.timedOut = true;
      this.end();
    }, this.spec.idleTimeoutMs);
  }

  end(): void {
    killGroup(this.pid, 'SIGTERM');
    this.killTimer ??= setTimeout(() => killGroup(this.pid, 'SIGKILL'), this.spec.graceMs ?? 5000);
    this.killTimer.unref();
  }

  /** Stops the clocks; a KILL already scheduled still comes, for a group member that ignored the TERM. */
  dispose(): void {
    for (const timer of [this.timer, this.idleTimer]) if (timer) clearTimeout(timer);
    this.spec.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** Where a stream of the child goes: the tail, the log file (redacted), and for stdout the line parser. */
function outputSink(
  spec: ProcessSpec,
  file: CappedLog,
  tail: TailBuffer,
  activity: OutputActivity,
  splitter?: LineSplitter,
  onData?: () => void,
) {
  const scrub = spec.redactor && spec.redactor.longest > 0 ? redactingFilter(spec.redactor) : undefined;
  const out = (data: Buffer, callback: (error?: Error | null) => void) => {
    tail.push(data);
    activity.begin();
    file.write(data, (error) => {
      activity.end();
      callback(error);
    });
  };
  return new Writable({
    write(chunk: Buffer, _enc, callback) {
      onData?.();
      splitter?.push(chunk);
      out(scrub ? scrub.write(chunk) : chunk, callback);
    },
    final(callback) {
      if (!scrub) return callback();
      out(scrub.end(), callback);
    },
  });
}

/** How long the pipes may stay silent after the process exited: a process it left outside its group may hold them. */
const DRAIN_MS = 2000;
/** How long output may go on after the process exited at all: something it left behind may never stop printing. */
const MAX_DRAIN_MS = 30_000;

/**
 * When the output last moved — a chunk arrived, or star-loop finished writing one down — and how many writes
 * are under way. While one is, the pipes wait on star-loop (a loaded disk), not on whoever holds them.
 */
class OutputActivity {
  private lastAt = performance.now();
  private pending = 0;

  begin(): void {
    this.pending++;
    this.lastAt = performance.now();
  }

  end(): void {
    this.pending--;
    this.lastAt = performance.now();
  }

  /** How long the pipes' writers have been silent with nothing of theirs waiting on star-loop. */
  quietFor(): number {
    return this.pending > 0 ? 0 : performance.now() - this.lastAt;
  }
}

/**
 * The output, read to its end — or, once the process has exited, until its pipes stayed silent for DRAIN_MS
 * (or went on for MAX_DRAIN_MS) without reaching their end: a child that escaped the process group (setsid,
 * without the sandbox) and holds stdout open must not hold the iteration past its timeout. Reading stops
 * then; what it writes after that goes nowhere. Time star-loop itself spends writing output down (a loaded
 * disk) is never silence: what the process gave before it exited is read through, never cut.
 */
async function drain(
  streams: Promise<unknown>,
  child: { stdout: Readable | null; stderr: Readable | null },
  activity: OutputActivity,
): Promise<boolean> {
  // Node marks a stream's end of file when the pipe's last writer closed it, before the data is consumed.
  const atEnd = (s: Readable | null) => !s || (s as { _readableState?: { ended?: boolean } })._readableState?.ended;
  const giveUpAt = performance.now() + MAX_DRAIN_MS;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(50, DRAIN_MS - activity.quietFor()));
    });
    const done = await Promise.race([streams.then(() => true), late]);
    clearTimeout(timer);
    if (done) return true;
    // A timer runs before the I/O of its loop turn: when star-loop was busy the end may be waiting unread in
    // the pipe. One more turn (an immediate runs after the poll) reads what the kernel holds before deciding.
    await new Promise((resolve) => setImmediate(resolve));
    if (atEnd(child.stdout) && atEnd(child.stderr)) {
      await streams;
      return true;
    }
    if (activity.quietFor() >= DRAIN_MS || performance.now() >= giveUpAt) break;
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
  await streams;
  return false;
}

let spawned = 0;

/**
 * Runs one child process in its own process group with its output streamed to a log file. On timeout
 * or abort the whole group gets TERM, then KILL after a grace period; when the main process exits, what
 * it left running in its group is ended too, so no agent or gate leaves orphans behind.
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const started = performance.now();
  const file = createWriteStream(spec.logFile, { flags: 'a' });
  let logError: NodeJS.ErrnoException | undefined;
  // A write that fails (ENOSPC) is this run's to report, never an uncaught error that kills star-loop.
  file.on('error', (error: NodeJS.ErrnoException) => {
    logError ??= error;
  });
  await once(file, 'open');
  const tail = new TailBuffer(spec.tailBytes ?? 8 * 1024);
  const log = new CappedLog(file, `${spec.logFile}.tail-${process.pid}`, spec.maxLogBytes);
  const splitter = new LineSplitter(spec.onStdoutLine ?? (() => {}));
  const tag = `${process.pid}-${++spawned}-${Math.random().toString(36).slice(2, 10)}`;
  const child = execa(spec.command, spec.args, {
    cwd: spec.cwd,
    // PWD inherited from star-loop would name another folder: some agents (opencode) trust it over the cwd.
    // The tag finds what it leaves outside its process group when it has to be ended (end-tagged.ts).
    env: { ...spec.env, PWD: spec.cwd, [PROCESS_TAG_ENV]: tag },
    extendEnv: false,
    detached: true,
    reject: false,
    buffer: false,
    stripFinalNewline: false,
    ...(spec.input === undefined ? { stdin: 'ignore' as const } : { input: spec.input }),
    stdout: 'pipe',
    stderr: 'pipe',
    ...(spec.ipc ? { ipc: true, serialization: 'json' as const } : {}),
  });
  const onMessage = spec.ipc;
  if (onMessage) {
    child.on('message', (message: unknown) =>
      onMessage(message, (answer) => {
        // The child may be gone by now: its exit is handled below.
        if (child.connected) child.send(answer as never, (error: Error | null) => error && undefined);
      }),
    );
  }
  const ender = new GroupEnder(child.pid, spec);
  // The main process is done: end what it left running in its group, so the pipes close. Listened for at
  // once: a fast process exits while onSpawn below still runs.
  const exited = once(child, 'exit').catch(() => undefined);
  child.once('exit', () => ender.end());
  const arm = () => ender.arm();
  // Settled as soon as they are made: a stream that fails early (the log's disk full) is never an unhandled
  // rejection that would kill star-loop while it still waits for the child.
  const activity = new OutputActivity();
  const streams = Promise.allSettled([
    child.stdout
      ? pipeline(child.stdout, outputSink(spec, log, tail, activity, spec.onStdoutLine ? splitter : undefined, arm))
      : Promise.resolve(),
    child.stderr ? pipeline(child.stderr, outputSink(spec, log, tail, activity, undefined, arm)) : Promise.resolve(),
  ]);
  // Only now, with the output already being read: a fast agent may finish while this runs. If recording the
  // process fails (the disk full), it is ended and waited for before the failure is passed on: never left.
  let spawnFailure: unknown;
  if (child.pid)
    await Promise.resolve(spec.onSpawn?.(child.pid, tag)).catch((error: unknown) => {
      spawnFailure = error;
      ender.end();
    });
  // The exit, not execa's promise: that one also waits for the pipes' end, which a process left outside the
  // group may hold forever. The drain decides how long to read on; the result is taken after it.
  await Promise.race([exited, child.catch(() => undefined)]);
  const drained = await drain(streams, child, activity);
  // A sink that failed (the ring file's disk full) ended its pipe, and the process with it (SIGPIPE): the
  // run's to report like a failed log write. Reading stopped by the drain is not a failure.
  for (const settled of await streams)
    if (settled.status === 'rejected' && settled.reason?.code !== 'ERR_STREAM_PREMATURE_CLOSE')
      logError ??= settled.reason;
  const result = await child;
  // Ended by star-loop, or something it started still holds its output: end what left the process group.
  if (ender.timedOut || ender.aborted || !drained) await endTagged(tag);
  splitter.end();
  ender.dispose();
  if (!file.destroyed) {
    await log.finish().catch(() => undefined);
    file.end();
    await once(file, 'close').catch(() => undefined);
  }

  if (spawnFailure) throw spawnFailure;
  const { timedOut, idle, aborted } = ender;
  const spawnError =
    result.failed && result.exitCode === undefined && !result.signal && !timedOut && !aborted
      ? result.cause instanceof Error
        ? result.cause.message
        : result.shortMessage
      : undefined;
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut,
    idle,
    aborted,
    spawnError,
    logError,
    durationMs: performance.now() - started,
    tail: tail.text(),
    skippedLongLines: splitter.skippedLines,
  };
}
