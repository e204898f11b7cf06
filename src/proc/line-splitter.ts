const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines without ever holding more than one line (at most `maxLineBytes`) in
 * memory. A longer line is skipped whole and counted: adapters only need short structured lines, and an
 * agent that prints a 200 MB line must not cost 200 MB of memory.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private overflowing = false;
  skippedLines = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineBytes = 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      if (this.partBytes === 0 && !this.overflowing) {
        // The common case, a whole line inside one chunk: decode it in place, no copy.
        if (nl - start > this.maxLineBytes) this.skippedLines++;
        else this.onLine(chunk.toString('utf8', start, nl).replace(/\r$/, ''));
      } else {
        this.append(chunk.subarray(start, nl));
        this.flush();
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  end(): void {
    if (this.partBytes > 0 || this.overflowing) this.flush();
  }

  private append(bytes: Buffer): void {
    if (this.overflowing) return;
    if (this.partBytes + bytes.length > this.maxLineBytes) {
      this.overflowing = true;
      this.parts = [];
      this.partBytes = 0;
      return;
    }
    if (bytes.length > 0) {
      // Copy: the chunk's memory belongs to the stream and may be reused.
      this.parts.push(Buffer.from(bytes));
      this.partBytes += bytes.length;
    }
  }

  private flush(): void {
    if (this.overflowing) {
      this.skippedLines++;
      this.overflowing = false;
      return;
    }
    const line = Buffer.concat(this.parts, this.partBytes).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.partBytes = 0;
    this.onLine(line);
  }
}
