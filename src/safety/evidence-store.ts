import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Git } from '../git/git.js';

/** Where a kept ref can be found when the report is written, and the command that brings it back. */
export interface Recovery {
  ref: string;
  /** `repository`: the ref is still in the repository; `store`: only in the evidence store; `lost`: in neither. */
  found: 'repository' | 'store' | 'lost';
  /** What to run in the repository to get it back as a branch (absent when lost). */
  command?: string;
}

/** How many of the commits copied last are named to git as already in the store, for a copy of what is new. */
const RECENT = 32;

/** The evidence store of a repository: a bare repository under the user's state directory, outside its `.git`. */
export function evidenceDir(commonDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  const name = basename(dirname(commonDir)).replace(/[^\w.-]+/g, '-') || 'repo';
  const key = createHash('sha256').update(commonDir).digest('hex').slice(0, 10);
  return join(stateHome, 'star-loop', 'evidence', `${name}-${key}.git`);
}

/**
 * Every iteration's start and end commit (and the evidence of a safety stop) kept outside the repository:
 * star-loop's refs are fetched into a bare repository of its own (after each iteration, or once per sandboxed
 * run: see `deferred`), so deleting them, expiring the reflog and pruning inside the repository cannot lose
 * accepted work. Inside a sandbox the agent cannot reach the store at all.
 */
export class EvidenceStore {
  private ready?: Promise<Git>;
  /**
   * Copy once, when the run settles (its report), not after every iteration: set when agents run in the
   * sandbox, where they cannot write `.git` (so cannot delete the refs or prune before the copy is made; a
   * runner killed before then leaves the refs in the repository, and the next run's recovery copies them).
   * Without the sandbox each copy is made before the next agent starts.
   */
  deferred = false;
  /** The runs whose refs wait for the deferred copy. */
  private readonly due = new Set<string>();
  private pending: Promise<void> = Promise.resolve();
  private readonly problems: string[] = [];

  constructor(
    private readonly repo: Git,
    private readonly commonDir: string,
    readonly dir: string = evidenceDir(commonDir),
  ) {}

  private store(): Promise<Git> {
    this.ready ??= Git.initBare(this.dir).then((store) => {
      store.keepAlive(); // its refs through one long-running update-ref
      return store;
    });
    return this.ready;
  }

  /** Runs whose refs this process has fetched into the store. */
  private readonly fetched = new Set<string>();

  /** Commits whose objects (and all they reach) this process has copied into the store. */
  private readonly stored = new Set<string>();

  /**
   * Copies the run's refs (and the objects they reach) into the store; a failure is returned, not thrown.
   * `kept`: the refs just written and their commits. Once this process has copied commits into the store,
   * only what is new goes, as a pack built against them (nothing at all when an iteration starts where the
   * last one ended), and the refs are written there; otherwise, and for a copy that names no refs, a fetch
   * of every ref of the run.
   */
  async keep(runId: string, kept: ReadonlyArray<{ ref: string; commit: string }> = []): Promise<string | undefined> {
    // Due either way: when the run settles, one fetch copies every ref of the run, whoever wrote it.
    this.due.add(runId);
    return this.deferred ? undefined : this.copy(runId, kept);
  }

  /**
   * Makes the copies still due (one fetch a run, every ref under its prefix: deferred ones, and refs of the
   * run no iteration named); what went wrong in them (said once).
   */
  async settle(): Promise<string[]> {
    await this.flush();
    // Fetches leave loose objects and skip git's housekeeping (a process or two an iteration): once a run.
    if (this.ready) await (await this.ready.catch(() => undefined))?.maintain().catch(() => undefined);
    return this.problems.splice(0);
  }

  private flush(): Promise<void> {
    const runs = [...this.due];
    this.due.clear();
    this.pending = this.pending.then(async () => {
      for (const runId of runs) {
        const problem = await this.copy(runId, []);
        if (problem) this.problems.push(problem);
      }
    });
    return this.pending;
  }

  private async copy(runId: string, kept: ReadonlyArray<{ ref: string; commit: string }>): Promise<string | undefined> {
    try {
      const store = await this.store();
      if (kept.length > 0 && this.stored.size > 0) {
        // What is new since this process's last copy goes as a pack built against commits the store holds.
        const fresh = kept.map((k) => k.commit).filter((c) => !this.stored.has(c));
        if (fresh.length > 0) await this.repo.sendObjects(store, fresh, [...this.stored].slice(-RECENT));
        for (const k of kept) {
          await store.keepRef(k.ref, k.commit);
          this.stored.add(k.commit);
        }
        return undefined;
      }
      // Once the store holds this run's refs, only they are offered as what it has (before then, all are:
      // a run's first copy must not send the whole history again).
      const refs = `refs/star-loop/${runId}/*`;
      await store.fetchRefs(this.commonDir, `+${refs}:${refs}`, this.fetched.has(runId) ? refs : undefined);
      this.fetched.add(runId);
      for (const k of kept) this.stored.add(k.commit);
      return undefined;
    } catch (error) {
      return `could not copy star-loop's refs into the evidence store ${this.dir}: ${(error as Error).message}`;
    }
  }

  /** Where each ref can still be found, checked now: a report never promises what it has not checked. */
  async locate(refs: readonly string[]): Promise<Recovery[]> {
    await this.flush();
    const out: Recovery[] = [];
    for (const ref of refs) {
      const name = `recovered-${ref.split('/').pop()}`;
      if (await this.repo.resolve(ref)) {
        out.push({ ref, found: 'repository', command: `git branch ${name} ${ref}` });
        continue;
      }
      const store = await this.store().catch(() => undefined);
      if (store && (await store.resolve(ref))) {
        out.push({ ref, found: 'store', command: `git fetch ${this.dir} ${ref} && git branch ${name} FETCH_HEAD` });
      } else out.push({ ref, found: 'lost' });
    }
    return out;
  }
}
