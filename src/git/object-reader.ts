import { onPath } from '../proc/find-executable.js';
import { type AnswerServer, startAnswerServer } from '../proc/line-server.js';

/**
 * Objects read through one `git cat-file --batch` kept running: without the sandbox the agent commits itself,
 * and the secret scan reads its commits' messages every iteration. Each answer is `<id> <type> <size>`, then
 * that many bytes and a newline; a name git cannot find is answered `<name> missing` (undefined). `read`
 * answers null once the process failed (the caller runs git instead).
 */
export class ObjectReader {
  private server?: AnswerServer<{ type: string; data: Buffer } | undefined>;

  constructor(private readonly git: { cwd: string; env: NodeJS.ProcessEnv; prefix: readonly string[] }) {}

  async read(name: string): Promise<{ type: string; data: Buffer } | undefined | null> {
    if (/[\r\n]/.test(name)) return undefined;
    try {
      this.server ??= startAnswerServer(onPath('git'), [...this.git.prefix, 'cat-file', '--batch'], this.git, framer);
      return await this.server.ask(name);
    } catch {
      this.close();
      return null;
    }
  }

  close(): void {
    this.server?.close();
    this.server = undefined;
  }
}

/** `cat-file --batch` output, answer by answer (pure but for its state). */
function framer(answer: (value: { type: string; data: Buffer } | undefined) => void): (chunk: Buffer) => void {
  let buffer: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length > 0 ? Buffer.concat([buffer, chunk]) : chunk;
    for (;;) {
      const newline = buffer.indexOf(10);
      if (newline < 0) return;
      const header = buffer.toString('utf8', 0, newline).split(' ');
      const size = Number(header[2]);
      if (header.length !== 3 || !Number.isInteger(size)) {
        // `<name> missing` (or ambiguous): no content follows.
        buffer = buffer.subarray(newline + 1);
        answer(undefined);
        continue;
      }
      if (buffer.length < newline + 1 + size + 1) return;
      const data = Buffer.from(buffer.subarray(newline + 1, newline + 1 + size));
      buffer = buffer.subarray(newline + 1 + size + 1);
      answer({ type: header[1] as string, data });
    }
  };
}
