import { onPath } from '../proc/find-executable.js';
import { type AnswerServer, startAnswerServer } from '../proc/line-server.js';

const OBJECT_ID = /^[0-9a-f]{40,64}$/;

/**
 * Patches between two commits through one `git diff-tree --stdin -p` kept running: without the sandbox the
 * agent commits itself, and the secret scan reads what its commits added every iteration. Framed like the
 * name-status diffs (long-running.ts TreeDiffs): a request is `TO FROM` then `FROM FROM`, so TO's header
 * line, the patch, then FROM's header line (a diff of nothing, printed with `--always`) ends the answer. No
 * patch line is a bare object id — every one has its prefix (`+`, `-`, `@@`, `diff`, `index`…) — and an
 * answer that begins with FROM's header failed (null): then, or when the process is gone, the caller runs
 * `git diff`. `options`: the diff's own (context, renames, text, no textconv or external diff).
 */
export class PatchDiffs {
  private running?: { server: AnswerServer<string | null>; expected: Array<{ from: string; to: string }> };

  constructor(
    private readonly git: { cwd: string; env: NodeJS.ProcessEnv; prefix: readonly string[] },
    private readonly options: readonly string[],
  ) {}

  /** `git diff OPTIONS FROM TO` between two commits given by id, as diff-tree prints it; null: ask git. */
  async patch(from: string, to: string): Promise<string | null> {
    if (!OBJECT_ID.test(from) || !OBJECT_ID.test(to) || from === to) return null;
    try {
      if (!this.running) {
        const expected: Array<{ from: string; to: string }> = [];
        const args = [...this.git.prefix, 'diff-tree', '--stdin', '-r', '-p', '--always', ...this.options];
        const server = startAnswerServer<string | null>(onPath('git'), args, this.git, (answer) =>
          this.framer(expected, answer),
        );
        this.running = { server, expected };
      }
      const { server, expected } = this.running;
      expected.push({ from, to });
      return await server.ask(`${to} ${from}\n${from} ${from}`);
    } catch {
      this.close();
      return null;
    }
  }

  private framer(
    expected: Array<{ from: string; to: string }>,
    answer: (out: string | null) => void,
  ): (chunk: Buffer) => void {
    let rest: Buffer = Buffer.alloc(0);
    let open = false;
    let lines: string[] = [];
    const done = (out: string | null) => {
      expected.shift();
      open = false;
      lines = [];
      answer(out);
    };
    return (chunk) => {
      const buffer = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      for (let newline = buffer.indexOf(10, start); newline !== -1; newline = buffer.indexOf(10, start)) {
        const line = buffer.toString('utf8', start, newline);
        start = newline + 1;
        const request = expected[0];
        if (!request) break;
        if (!open && line === request.to) open = true;
        else if (line === request.from) done(open ? lines.map((l) => `${l}\n`).join('') : null);
        else if (open) lines.push(line);
        else {
          // Out of step with git: this process is dropped, every request still waiting on it fails, git is asked.
          expected.length = 0;
          if (this.running?.expected === expected) this.close();
          return;
        }
      }
      rest = Buffer.from(buffer.subarray(start));
    };
  }

  close(): void {
    this.running?.server.close();
    this.running = undefined;
  }
}
