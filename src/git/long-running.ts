import { type LineServer, startLineServer } from '../proc/line-server.js';

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
      this.server ??= startLineServer('git', [...this.git.prefix, 'cat-file', '--batch-check=%(objectname)'], this.git);
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
      this.server ??= startLineServer('git', [...this.git.prefix, 'update-ref', ...reason, '--stdin'], this.git);
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
