import { type FileHandle, open, unlink } from 'node:fs/promises';

/** How much of one process's output a log keeps: the first half and the last half (agent.log, gates.log). */
export const MAX_LOG_BYTES = 20 * 1024 * 1024;

/**
 * A process's output on its way to a log file, bounded: the first `max / 2` bytes are written as they come;
 * after that the output goes round a ring file of `max / 2` bytes beside the log (written in place, so the
 * disk, not memory, holds it, and a loud process is slowed by the disk as before); at the end the ring
 * follows a line that says how much was cut. An agent printing a gigabyte leaves 20 MB, its beginning and
 * its end.
 */
export class CappedLog {
  private written = 0;
  private total = 0;
  private readonly head: number;
  private readonly ringSize: number;
  private ring?: Promise<FileHandle>;
  private ringAt = 0;
  private ringFull = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: NodeJS.WritableStream,
    private readonly ringPath: string,
    private readonly max = MAX_LOG_BYTES,
  ) {
    this.head = Math.floor(max / 2);
    this.ringSize = max - this.head;
  }

  /**
   * Called by stdout's and stderr's sinks, each waiting for its own callback but not for the other's: the
   * split between head and ring is decided here, at once, and the ring's writes go one after another.
   */
  write(data: Buffer, callback: (error?: Error | null) => void): void {
    this.total += data.length;
    const now = data.subarray(0, Math.max(0, Math.min(this.head - this.written, data.length)));
    this.written += now.length;
    if (now.length === data.length) {
      this.file.write(now, callback);
      return;
    }
    const parts = [this.keep(data.subarray(now.length))];
    if (now.length > 0)
      parts.push(new Promise<void>((resolve, reject) => this.file.write(now, (e) => (e ? reject(e) : resolve()))));
    Promise.all(parts).then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }

  /** Queues `data` for the ring file, after what is queued already. */
  private keep(data: Buffer): Promise<void> {
    const kept = this.queue.then(() => this.keepNow(data));
    this.queue = kept.catch(() => undefined);
    return kept;
  }

  /** Writes `data` round the ring file: only its last `ringSize` bytes can matter. */
  private async keepNow(data: Buffer): Promise<void> {
    this.ring ??= open(this.ringPath, 'w+');
    const ring = await this.ring;
    let from = Math.max(0, data.length - this.ringSize);
    while (from < data.length) {
      const n = Math.min(data.length - from, this.ringSize - this.ringAt);
      await ring.write(data, from, n, this.ringAt);
      from += n;
      this.ringAt += n;
      if (this.ringAt === this.ringSize) {
        this.ringAt = 0;
        this.ringFull = true;
      }
    }
  }

  private append(data: Buffer): Promise<void> {
    return new Promise((resolve) => this.file.write(data, () => resolve()));
  }

  /** The held part, after the line that marks the cut; the ring file removed. Nothing when nothing was cut. */
  async finish(): Promise<void> {
    await this.queue;
    if (!this.ring) return;
    const ring = await this.ring;
    try {
      const held = this.ringFull ? this.ringSize : this.ringAt;
      const cut = this.total - this.written - held;
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
      const marker =
        `\n… [${mb(cut)} cut here: star-loop keeps the first and last ${mb(this.ringSize)} of each ` +
        `process's output]\n`;
      await this.append(Buffer.from(cut > 0 ? marker : ''));
      // Oldest first, a chunk at a time: the held part never sits whole in memory.
      const segments = this.ringFull
        ? [
            [this.ringAt, this.ringSize],
            [0, this.ringAt],
          ]
        : [[0, this.ringAt]];
      const chunk = Buffer.alloc(Math.min(1024 * 1024, this.ringSize));
      for (const [start = 0, end = 0] of segments) {
        for (let at = start; at < end; ) {
          const { bytesRead } = await ring.read(chunk, 0, Math.min(chunk.length, end - at), at);
          if (bytesRead === 0) break;
          await this.append(Buffer.from(chunk.subarray(0, bytesRead)));
          at += bytesRead;
        }
      }
    } finally {
      await ring.close().catch(() => undefined);
      await unlink(this.ringPath).catch(() => undefined);
    }
  }
}
