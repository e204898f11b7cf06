import { rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { onPath } from '../proc/find-executable.js';
import { type AnswerServer, type LineServer, startAnswerServer, startLineServer } from '../proc/line-server.js';

const OBJECT_ID = /^[0-9a-f]{40,64}$/;

/** Where and how the helper runs git: the repository, the guarded environment and options. */
interface GuardedGit {
  cwd: string;
  env: NodeJS.ProcessEnv;
  prefix: readonly string[];
}

/**
 * Object names resolved by one `git cat-file --batch-check` kept running: the loop asks for HEAD, trees and
 * refs several times an iteration, and a pipe round trip costs far less than a process. `resolve` answers
 * null when the process is gone (the caller falls back to `rev-parse`).
 */
export class BatchLookup {
  private server?: LineServer;

  constructor(private readonly git: GuardedGit) {}

  async resolve(name: string): Promise<string | undefined | null> {
    try {
      this.server ??= startLineServer(
        onPath('git'),
        [...this.git.prefix, 'cat-file', '--batch-check=%(objectname)'],
        this.git,
      );
      const line = await this.server.ask(name);
      return OBJECT_ID.test(line) ? line : undefined;
    } catch {
      this.server = undefined;
      return null;
    }
  }

  close(): void {
    this.server?.close();
    this.server = undefined;
  }
}

/**
 * Refs written through one `git update-ref --stdin` kept running, one transaction each: no process per
 * iteration. `message`: the reflog's reason for every update it makes (refs that keep a reflog: HEAD and
 * branches). `update` answers false when that failed (the caller writes the ref with a process of its own);
 * with `old`, git writes only while the ref still points at it.
 */
export class RefWriter {
  private server?: LineServer;

  constructor(
    private readonly git: GuardedGit,
    private readonly message?: string,
  ) {}

  async update(ref: string, commit: string, old?: string): Promise<boolean> {
    try {
      const reason = this.message === undefined ? [] : ['-m', this.message];
      this.server ??= startLineServer(
        onPath('git'),
        [...this.git.prefix, 'update-ref', ...reason, '--stdin'],
        this.git,
      );
      if ((await this.server.ask('start')) !== 'start: ok') throw new Error('update-ref: no transaction');
      this.server.send(`update ${ref} ${commit}${old === undefined ? '' : ` ${old}`}`);
      if ((await this.server.ask('commit')) === 'commit: ok') return true;
    } catch {
      // below
    }
    this.close();
    return false;
  }

  close(): void {
    this.server?.close();
    this.server = undefined;
  }
}

/** A name-status entry's status (`M`, `A`, `D`, `T`, `U`, `X`, `B`; `R`/`C` with a score and two paths). */
const STATUS = /^[ABCDMRTUX]\d*$/;

/**
 * Name-status diffs between two commits through one `git diff-tree --stdin` kept running. A line there is a
 * commit and the parent to diff it from, so each request is `TO FROM` and then `FROM FROM` (a diff of
 * nothing): TO's header, the entries, then FROM's header ends the answer. git skips a line it cannot read, so
 * an answer that begins with FROM's header failed (null): then, or when the process is gone, the caller asks
 * `git diff` instead.
 */
export class TreeDiffs {
  /** The running diff-tree and the requests it has yet to answer, in order (its own: a new one starts empty). */
  private running?: { server: AnswerServer<string | null>; expected: Array<{ from: string; to: string }> };

  constructor(private readonly git: GuardedGit) {}

  /** `git diff --name-status -z -M FROM TO` as it prints it, for two commits given by id; null: ask git. */
  async nameStatus(from: string, to: string): Promise<string | null> {
    if (!OBJECT_ID.test(from) || !OBJECT_ID.test(to) || from === to) return null;
    try {
      if (!this.running) {
        const expected: Array<{ from: string; to: string }> = [];
        const args = [...this.git.prefix, 'diff-tree', '--stdin', '-r', '-z', '-M', '--name-status', '--always'];
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
    let entries: string[] = [];
    let paths = 0;
    const done = (out: string | null) => {
      expected.shift();
      open = false;
      entries = [];
      answer(out);
    };
    return (chunk) => {
      const buffer = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      for (let nul = buffer.indexOf(0, start); nul !== -1; nul = buffer.indexOf(0, start)) {
        const token = buffer.toString('utf8', start, nul);
        start = nul + 1;
        const request = expected[0];
        if (!request) break;
        if (paths > 0) {
          entries.push(token);
          paths--;
        } else if (!open && token === request.to) open = true;
        else if (token === request.from) done(open ? entries.map((e) => `${e}\0`).join('') : null);
        else if (open && STATUS.test(token)) {
          entries.push(token);
          paths = /^[RC]/.test(token) ? 2 : 1;
        } else {
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

/**
 * Commit objects written through one `git hash-object -t commit -w --stdin-paths` kept running, instead of a
 * `commit-tree` process each: the commit's text goes to a scratch file whose path is sent, and git checks its
 * format, writes it and answers its id. `write` answers null when that failed (the caller runs commit-tree).
 */
export class CommitWriter {
  private server?: LineServer;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly git: GuardedGit,
    private readonly scratch: string,
  ) {}

  write(text: string): Promise<string | null> {
    const next = this.queue.then(async () => {
      try {
        const args = [...this.git.prefix, 'hash-object', '-t', 'commit', '-w', '--stdin-paths'];
        this.server ??= startLineServer(onPath('git'), args, this.git);
        await writeFile(this.scratch, text);
        const id = await this.server.ask(this.scratch);
        if (OBJECT_ID.test(id)) return id;
      } catch {
        // below
      }
      this.close();
      return null;
    });
    this.queue = next;
    return next;
  }

  close(): void {
    this.server?.close();
    this.server = undefined;
    rmSync(this.scratch, { force: true });
  }
}

/**
 * Blobs of work-tree files written through one `git hash-object -w --stdin-paths` kept running (the driver
 * guard in `prefix`: the filters that run are the user's, as for `git add`), and trees through one
 * `git mktree --batch -z`: star-loop's commit needs no index process (src/git/commit-from-index.ts). Each
 * answers null once its process failed; a new guard (the config changed) starts a new hasher.
 */
export class TreeWriter {
  private hasher?: { server: LineServer; prefix: string };
  private maker?: LineServer;

  constructor(private readonly git: GuardedGit) {}

  async hashFiles(paths: readonly string[], prefix: readonly string[]): Promise<string[] | null> {
    try {
      const key = prefix.join('\0');
      if (this.hasher?.prefix !== key) {
        this.hasher?.server.close();
        const args = [...prefix, 'hash-object', '-w', '--stdin-paths'];
        this.hasher = { server: startLineServer(onPath('git'), args, this.git), prefix: key };
      }
      const { server } = this.hasher;
      const ids = await Promise.all(paths.map((p) => server.ask(p)));
      if (ids.every((id) => OBJECT_ID.test(id))) return ids;
    } catch {
      // below
    }
    this.close();
    return null;
  }

  async makeTree(entries: readonly string[]): Promise<string | null> {
    try {
      this.maker ??= startLineServer(onPath('git'), [...this.git.prefix, 'mktree', '--batch', '-z'], this.git);
      // -z: each entry ends with NUL, and an empty one ends the tree.
      const id = await this.maker.ask(entries.map((e) => `${e}\0`).join(''), '\0');
      if (OBJECT_ID.test(id)) return id;
    } catch {
      // below
    }
    this.close();
    return null;
  }

  close(): void {
    this.hasher?.server.close();
    this.maker?.close();
    this.hasher = undefined;
    this.maker = undefined;
  }
}

/** What `commitText` needs: a commit's tree, parents, one identity for author and committer, a message. */
export interface CommitParts {
  tree: string;
  parents: readonly string[];
  name: string;
  email: string;
  message: string;
  /** Seconds since the epoch, and the offset from UTC in minutes (east positive). */
  seconds: number;
  offsetMinutes: number;
}

/** Characters git strips from an identity's ends, or refuses in it: such an identity is left to commit-tree. */
const IDENTITY = /^[^\s.,:;<>"\\'\0\n][^<>\0\n]*$/;
const IDENTITY_END = /[^\s.,:;<>"\\']$/;

/**
 * A commit's text exactly as `git commit-tree TREE -p P… -m MESSAGE` writes it (pure), or undefined where
 * commit-tree would change what it is given: an identity with characters it strips or refuses, a message
 * that is not a single line.
 */
export function commitText(parts: CommitParts): string | undefined {
  const plain = (s: string) => IDENTITY.test(s) && IDENTITY_END.test(s);
  if (!plain(parts.name) || !plain(parts.email) || /[\n\0]/.test(parts.message)) return undefined;
  const sign = parts.offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(parts.offsetMinutes);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  const who = `${parts.name} <${parts.email}> ${parts.seconds} ${zone}`;
  const parents = parts.parents.map((p) => `parent ${p}\n`).join('');
  return `tree ${parts.tree}\n${parents}author ${who}\ncommitter ${who}\n\n${parts.message}\n`;
}
