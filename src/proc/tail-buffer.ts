/** Keeps the last `limit` bytes written to it: enough to quote a failing gate without keeping its log. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    // Stream chunks are fresh buffers that nothing else writes to: keeping a reference is safe.
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.chunks.length > 1 && this.bytes - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.bytes -= this.chunks.shift()?.length ?? 0;
    }
  }

  /** The tail as text, starting at a line boundary when the buffer was cut. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    const cut = all.length > this.limit;
    let text = all.subarray(all.length - Math.min(all.length, this.limit)).toString('utf8');
    if (cut) {
      const nl = text.indexOf('\n');
      if (nl !== -1 && nl < text.length - 1) text = text.slice(nl + 1);
    }
    return text;
  }
}
