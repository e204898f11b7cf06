import { createHash } from 'node:crypto';
import { type BigIntStats, existsSync } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { onPath } from '../proc/find-executable.js';
import { runCapture } from '../proc/run-capture.js';
import { runPiped } from '../proc/run-piped.js';
import { commitFromIndex } from './commit-from-index.js';
import { ALWAYS_OFF, driverCommands, driverGuard, GUARDED_ENV, splitConfigScopes } from './git-guard.js';
import { Entries, entryMtimeNs, serializeIndex, smudged } from './index-file.js';
import { BatchLookup, CommitWriter, commitText, RefWriter, TreeDiffs, TreeWriter } from './long-running.js';
import { ObjectReader } from './object-reader.js';
import {
  type ChangedFile,
  parseFlaggedEntries,
  parseMergeTree,
  parseNameStatusZ,
  parseRefLines,
  parseRemotes,
  parseStatusZ,
  type WorkingChange,
} from './parse-git-output.js';
import { PatchDiffs } from './patch-diffs.js';
import { readRefs } from './read-refs.js';

const FALLBACK_IDENTITY = { name: 'star-loop', email: 'star-loop@localhost' };

/** The driver commands of each repository's whole config (system, global, its own), read once per process. */
const trustedByRepo = new Map<string, Promise<TrustedReading>>();

interface TrustedReading {
  drivers: Map<string, string>;
  /** The whole config as it was then (`config --list -z`): the identity of star-loop's commits comes from it. */
  all: string;
  /** The repository's own config as the same reading found it (`config --list -z`), when git could say. */
  repository?: string;
}

/**
 * The user's driver commands, as they were the first time star-loop's git looked — at recon, before any
 * agent of this process ran. Later ones are an agent's doing. Read with each entry's scope, so the same
 * process also says what the repository's own config holds.
 */
function trustedDrivers(root: string, configFile: string): Promise<TrustedReading> {
  let trusted = trustedByRepo.get(configFile);
  if (!trusted) {
    const list = (args: string[]) =>
      runCapture(onPath('git'), ['config', '--list', '--includes', ...args, '-z'], { cwd: root, env: process.env });
    trusted = list(['--show-scope']).then(async (out) => {
      if (out.exitCode === 0) {
        const { all, repository } = splitConfigScopes(out.stdout);
        return { drivers: driverCommands(all), all, repository };
      }
      const plain = await list([]); // a git without --show-scope (before 2.26)
      const all = plain.exitCode === 0 ? plain.stdout : '';
      return { drivers: driverCommands(all), all };
    });
    trustedByRepo.set(configFile, trusted);
  }
  return trusted;
}

/**
 * The only owner of git in star-loop. Every git command the runner issues goes through this class, so the
 * rule "star-loop never reverts, resets, stashes or cleans" can be read off one file: none of those verbs
 * appear here.
 *
 * Hand-made, not simple-git (decided, issue 19). What an iteration asks is not a process per call at all:
 * object lookups through one long-running `cat-file --batch-check`, refs and HEAD through `update-ref --stdin`,
 * name-status diffs through `diff-tree --stdin`, star-loop's commits through `hash-object --stdin-paths`
 * (long-running.ts), and on star-loop's own index its commits need no index process either: blobs through
 * `hash-object --stdin-paths`, trees through `mktree --batch`, the index file written by star-loop
 * (commit-from-index.ts); an agent's own commits (without the sandbox) read through `diff-tree --stdin -p`
 * and `cat-file --batch` (patch-diffs.ts, object-reader.ts); remote-tracking and branch refs, the git dirs and
 * the config read once or from git's files (read-refs.ts). What is left per iteration is `status`. A library
 * that spawns a process per call cannot be as fast on that path. Elsewhere simple-git would not parse
 * anything: worktrees, branches, merges and init here run git and read its exit code, and the outputs parsed
 * (porcelain v1 `-z` status with its two-letter codes, name-status `-z`, `merge-tree --write-tree`) are ones
 * its result types do not keep whole. And every command must carry the driver guard (`-c` pairs that switch
 * off the fsmonitor, hooks, filters and drivers an agent could plant, src/git/git-guard.ts, per repository)
 * and a scrubbed environment: exactly the configuration simple-git 4 warns about or refuses unless each key
 * is allowed one by one — a second list of the guard to keep in step, for no parsing gained.
 */
export class Git {
  constructor(readonly root: string) {
    const guarded = { cwd: root, env: { ...process.env, ...GUARDED_ENV }, prefix: ALWAYS_OFF };
    this.guarded = guarded;
    this.batch = new BatchLookup(guarded);
    this.refWriter = new RefWriter(guarded);
    this.headWriter = new RefWriter(guarded, HEAD_REASON);
    this.treeDiffs = new TreeDiffs(guarded);
    this.patches = new PatchDiffs(guarded, UNIFIED);
    this.objects = new ObjectReader(guarded);
    this.treeWriter = new TreeWriter(guarded);
    const located = Git.located.get(root);
    Git.located.delete(root);
    if (located) {
      this.gitDir = located.gitDir;
      this.configFile = Promise.resolve(join(located.commonDir, 'config'));
    }
  }

  /**
   * The repository's top level for `cwd`, or undefined when `cwd` is not inside a git work tree. The same
   * process says where its git directories are; the next `Git` made for that top level takes them from
   * here instead of asking again (recon's start-up path).
   */
  static async topLevel(cwd: string): Promise<string | undefined> {
    const env = { ...process.env, ...GUARDED_ENV };
    const args = ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--path-format=absolute', '--git-common-dir'];
    const out = await runCapture(onPath('git'), [...ALWAYS_OFF, ...args], { cwd, env }).catch(() => undefined);
    if (out?.exitCode !== 0) return undefined;
    const [root, gitDir, commonDir] = out.stdout.split('\n');
    if (root && gitDir && commonDir) Git.located.set(root, { gitDir, commonDir });
    return root || undefined;
  }

  /** Git directories found by `topLevel`, by top level, until a `Git` for it takes them. */
  private static readonly located = new Map<string, { gitDir: string; commonDir: string }>();

  /** A new repository (for the demo); star-loop never re-initialises an existing one. */
  static async init(dir: string, branch: string): Promise<Git> {
    const env = { ...process.env, ...GUARDED_ENV };
    const out = await runCapture(onPath('git'), [...ALWAYS_OFF, 'init', '--quiet', '--initial-branch', branch], {
      cwd: dir,
      env,
    });
    if (out.exitCode !== 0) throw new Error(out.stderr.trim() || 'git init failed');
    return new Git(dir);
  }

  /** A bare repository of star-loop's own (the evidence store), made if it does not exist. */
  static async initBare(dir: string): Promise<Git> {
    await mkdir(dir, { recursive: true });
    const store = new Git(dir);
    if (!existsSync(join(dir, 'HEAD'))) await store.raw(['init', '--quiet', '--bare']);
    return store;
  }

  /**
   * Fetches `refspec` from the repository at `source` into this one (star-loop's evidence store). `tips`: the
   * refs whose commits are offered to the source as already here — the run's own, not every ref the store
   * has gathered over months (the negotiation otherwise grows with the store: 0.20 s a fetch at 5,700 refs,
   * 0.10 s with the run's).
   */
  async fetchRefs(source: string, refspec: string, tips?: string): Promise<void> {
    // No automatic maintenance after each fetch: two more processes an iteration (see maintain()).
    const quiet = ['-c', 'maintenance.auto=false', '-c', 'gc.auto=0'];
    const negotiation = tips ? [`--negotiation-tip=${tips}`] : [];
    await this.raw([
      ...quiet,
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      ...negotiation,
      source,
      refspec,
    ]);
  }

  /**
   * Copies into `target` (the evidence store) the objects reachable from `include` and not from `exclude`
   * (commits `target` is known to hold with all they reach): `pack-objects | unpack-objects`, two processes
   * and no negotiation, where a fetch takes five and asks the source what the target has.
   */
  async sendObjects(target: Git, include: readonly string[], exclude: readonly string[]): Promise<void> {
    const env = { ...process.env, ...GUARDED_ENV };
    const pack = [...ALWAYS_OFF, ...(await this.driverGuard()), 'pack-objects', '--revs', '--stdout', '-q'];
    const unpack = [...ALWAYS_OFF, ...(await target.driverGuard()), 'unpack-objects', '-q'];
    const revs = `${[...include, ...exclude.map((c) => `^${c}`)].join('\n')}\n`;
    const out = await runPiped(
      { command: onPath('git'), args: pack, cwd: this.root, env },
      { command: onPath('git'), args: unpack, cwd: target.root, env },
      revs,
    );
    if (out.exitCodes.some((code) => code !== 0)) throw new Error(out.stderr.trim() || 'copying objects failed');
  }

  /** git's own automatic housekeeping (`gc --auto`: packs loose objects once there are many), when it is due. */
  async maintain(): Promise<void> {
    await this.raw(['gc', '--auto', '--quiet']);
  }

  /** Creates a branch at HEAD and switches to it; never moves an existing branch. */
  async switchToNewBranch(name: string): Promise<void> {
    await this.raw(['switch', '--quiet', '--create', name]);
  }

  /**
   * Runs git in the repository, guarded (src/git/git-guard.ts), through plain execFile (no library: see the
   * class's comment; simple-git's completion detection also added 50 ms to every command that prints nothing).
   */
  private async exec(args: string[], env?: Record<string, string>, input?: string) {
    const guard = [...ALWAYS_OFF, ...(await this.driverGuard())];
    const full = { ...process.env, ...GUARDED_ENV, ...env };
    return runCapture(onPath('git'), [...guard, ...args], { cwd: this.root, env: full, input });
  }

  private async raw(args: string[], env?: Record<string, string>, input?: string): Promise<string> {
    const result = await this.exec(args, env, input);
    if (result.exitCode !== 0) throw new Error(result.stderr.trim() || `git ${args[0]} exited ${result.exitCode}`);
    return result.stdout;
  }

  private guardCache?: { stamp: string; args: Promise<string[]>; config: Promise<string> };
  private configFile?: Promise<string | undefined>;

  /**
   * The driver commands git may run here (src/git/git-guard.ts): the trusted ones, the others switched off.
   * Read again whenever the repository's config file changes (only an agent outside a sandbox can change it,
   * and only while it runs). Reading config runs nothing. Promises are kept, so the git commands that start
   * together (recon starts several) share one reading instead of one each.
   */
  private async driverGuard(): Promise<string[]> {
    const env = { ...process.env, ...GUARDED_ENV };
    this.configFile ??= runCapture(onPath('git'), ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: this.root,
      env,
    }).then((dir) => (dir.exitCode === 0 ? join(dir.stdout.trim(), 'config') : undefined));
    const configFile = await this.configFile.catch(() => undefined);
    if (!configFile) {
      this.configFile = undefined; // not a repository yet (before `git init`): asked again next time
      return [];
    }
    const st = await stat(configFile).catch(() => undefined);
    const stamp = st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'absent';
    if (this.guardCache?.stamp !== stamp) {
      const first = !trustedByRepo.has(configFile);
      const trusted = trustedDrivers(this.root, configFile);
      const current = trusted.then(async (reading) => {
        if (first && reading.repository !== undefined) return reading.repository;
        const list = await runCapture(onPath('git'), ['config', '--list', '--includes', '-z'], { cwd: this.root, env });
        return list.exitCode === 0 ? list.stdout : '';
      });
      const args = Promise.all([trusted, current]).then(([t, list]) => driverGuard(t.drivers, driverCommands(list)));
      this.guardCache = { stamp, args, config: current };
    }
    return this.guardCache.args;
  }

  private async tryRaw(args: string[]): Promise<string | undefined> {
    try {
      return (await this.raw(args)).trim() || undefined;
    } catch {
      return undefined;
    }
  }

  private readonly batch: BatchLookup;
  private readonly refWriter: RefWriter;
  /** HEAD moved to star-loop's commit of the agent's work, through a long-running process too. */
  private readonly headWriter: RefWriter;
  private readonly treeDiffs: TreeDiffs;
  /** The secret scan's patches and commit messages, without the sandbox (the agent commits itself). */
  private readonly patches: PatchDiffs;
  private readonly objects: ObjectReader;
  private readonly treeWriter: TreeWriter;
  private readonly guarded: { cwd: string; env: NodeJS.ProcessEnv; prefix: readonly string[] };

  /** An object name, through the long-running lookup once keepAlive() was called, else `rev-parse`. */
  private async lookup(name: string): Promise<string | undefined> {
    if (this.persistent && !/[\s]/.test(name)) {
      const found = await this.batch.resolve(name);
      if (found !== null) return found;
    }
    return this.tryRaw(['rev-parse', '--verify', '--quiet', name]);
  }

  private persistent = false;

  /** From here on, lookups go through one long-running process (the loop asks many; recon a few). */
  keepAlive(): void {
    this.persistent = true;
  }

  /** Ends the helper processes (they would end by themselves when star-loop exits). */
  close(): void {
    this.batch.close();
    this.refWriter.close();
    this.headWriter.close();
    this.treeDiffs.close();
    this.patches.close();
    this.objects.close();
    this.commitWriter?.close();
    this.treeWriter.close();
  }

  /** HEAD's commit, or undefined in a repository with no commits yet. */
  async head(): Promise<string | undefined> {
    return this.lookup('HEAD^{commit}');
  }

  /** The tree a commit points at: two commits with the same tree hold the same content. */
  async tree(rev: string): Promise<string | undefined> {
    return this.lookup(`${rev}^{tree}`);
  }

  private gitDir?: string;

  /**
   * Current branch name, or undefined when HEAD is detached: read from this worktree's HEAD file (its
   * documented format, `ref: refs/heads/NAME`), with `symbolic-ref` for anything else (e.g. reftable).
   */
  async currentBranch(): Promise<string | undefined> {
    this.gitDir ??= await this.tryRaw(['rev-parse', '--absolute-git-dir']);
    const text = this.gitDir ? await readFile(join(this.gitDir, 'HEAD'), 'utf8').catch(() => undefined) : undefined;
    const ref = text?.startsWith('ref: ') ? text.slice(5).trim() : undefined;
    if (text !== undefined && !text.startsWith('ref: ') && /^[0-9a-f]{40,64}\s*$/.test(text)) return undefined;
    if (ref?.startsWith('refs/heads/') && !ref.endsWith('/.invalid')) return ref.slice('refs/heads/'.length);
    return this.tryRaw(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  }

  /**
   * origin/HEAD, then init.defaultBranch (the repository's own config, as every command star-loop runs
   * reads it), then whichever of main/master exists. Read from git's files and the config star-loop has
   * already read: recon's start-up path starts no process for it (reftable: git is asked).
   */
  async defaultBranch(): Promise<{ name?: string; source: string }> {
    await this.driverGuard();
    const commonDir = await this.configFile?.then((file) => file && dirname(file)).catch(() => undefined);
    const heads = commonDir ? await readRefs(commonDir, 'refs/heads/') : undefined;
    if (!commonDir || !heads || !this.guardCache) return this.defaultBranchFromGit();
    const originHead = await readFile(join(commonDir, 'refs/remotes/origin/HEAD'), 'utf8').catch(() => '');
    const remoteHead = /^ref: refs\/remotes\/origin\/(.+)$/.exec(originHead.trim())?.[1];
    const configured = configValues(await this.guardCache.config, 'init.defaultbranch').at(-1);
    return pickDefaultBranch(remoteHead, configured, heads.has('refs/heads/main'), heads.has('refs/heads/master'));
  }

  private async defaultBranchFromGit(): Promise<{ name?: string; source: string }> {
    // Asked all at once, decided in order.
    const [remoteHead, configured, main, master] = await Promise.all([
      this.tryRaw(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']),
      this.tryRaw(['config', '--get', 'init.defaultBranch']),
      this.tryRaw(['rev-parse', '--verify', '--quiet', 'refs/heads/main']),
      this.tryRaw(['rev-parse', '--verify', '--quiet', 'refs/heads/master']),
    ]);
    return pickDefaultBranch(remoteHead?.replace(/^origin\//, ''), configured, Boolean(main), Boolean(master));
  }

  /** Uncommitted changes (tracked and untracked), star-loop's own `.star/` excluded. */
  async workingChanges(): Promise<WorkingChange[]> {
    // No optional locks: `git status` then never rewrites the index, so recon (and --dry-run) writes nothing
    // and star-loop never competes with an agent's own git commands for the index lock.
    const out = await this.raw(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all']);
    return parseStatusZ(out);
  }

  private readonly diffs = new Map<string, Promise<string>>();

  /**
   * A diff between two commits given by id. Commits never change, so the answer is kept (the last few):
   * the safety check, the loop and verification ask for the same diffs within an iteration.
   */
  private diffOf(args: readonly string[], from: string, to: string): Promise<string> {
    const immutable = /^[0-9a-f]{40,64}$/.test(from) && /^[0-9a-f]{40,64}$/.test(to);
    if (!immutable) return this.raw(['diff', ...args, from, to]);
    const key = `${args.join(' ')} ${from} ${to}`;
    let diff = this.diffs.get(key);
    if (!diff) {
      // The name-status one between two commits, asked every iteration, through the long-running diff-tree
      // (which reads a pair of trees differently, and ends its answer for them with no NUL to frame it by).
      // The patch of the agent's commits (the secret scan) through the long-running diff-tree too.
      const server =
        args === NAME_STATUS
          ? () => this.treeDiffs.nameStatus(from, to)
          : args === UNIFIED
            ? () => this.patches.patch(from, to)
            : undefined;
      const fast =
        this.persistent && server
          ? this.bothCommits(from, to).then((commits) => (commits ? server() : null))
          : undefined;
      diff = fast
        ? fast.then((out) => out ?? this.raw(['diff', ...args, from, to]))
        : this.raw(['diff', ...args, from, to]);
      diff.catch(() => this.diffs.delete(key));
      this.diffs.set(key, diff);
      if (this.diffs.size > 16) this.diffs.delete(this.diffs.keys().next().value as string);
    }
    return diff;
  }

  /** Both ids name commits (not trees: gates compare folder trees too). */
  private async bothCommits(from: string, to: string): Promise<boolean> {
    const [a, b] = await Promise.all([this.lookup(`${from}^{commit}`), this.lookup(`${to}^{commit}`)]);
    return a === from && b === to;
  }

  /** Files whose committed content differs between two commits (both paths of a rename). */
  async filesChangedBetween(from: string, to: string): Promise<string[]> {
    const paths = new Set<string>();
    for (const f of await this.changedFiles(from, to)) for (const p of [f.oldPath, f.path]) if (p) paths.add(p);
    return [...paths];
  }

  /** `git diff --name-status -M` between two commits: what was added, modified, deleted or renamed. */
  async changedFiles(from: string, to: string): Promise<ChangedFile[]> {
    return parseNameStatusZ(await this.diffOf(NAME_STATUS, from, to));
  }

  /** The zero-context unified diff between two commits (renames followed), for line-level checks. */
  async unifiedDiff(from: string, to: string): Promise<string> {
    return this.diffOf(UNIFIED, from, to);
  }

  /** `hash subject` lines of the commits in `from..to`, newest first. */
  async commitsBetween(from: string, to: string, max = 50): Promise<string[]> {
    const out = await this.raw(['log', `--max-count=${max}`, '--format=%h %s', `${from}..${to}`]);
    return out.split('\n').filter(Boolean);
  }

  /** Every commit's full message between two commits (at most `max`), for the secret scan. */
  async commitMessages(from: string, to: string, max = 200): Promise<Array<{ commit: string; text: string }>> {
    const walked = this.persistent ? await this.messagesAlong(from, to, max) : undefined;
    if (walked) return walked;
    // -z: commits end with NUL, so an empty message (`--allow-empty-message`) is an empty field, not a gap.
    const out = await this.raw(['log', '-z', `--max-count=${max}`, '--format=%H%x00%B', `${from}..${to}`]);
    const fields = out.split('\0');
    const messages: Array<{ commit: string; text: string }> = [];
    for (let i = 0; i + 1 < fields.length; i += 2)
      messages.push({ commit: fields[i] ?? '', text: fields[i + 1] ?? '' });
    return messages;
  }

  /**
   * commitMessages read through the long-running `cat-file --batch`, when `from..to` is a line of commits
   * (each with one parent, `to` back to `from` within `max`: what an agent's commits are); otherwise, or
   * for a message in another encoding (git log would convert it), undefined: git log is asked.
   */
  private async messagesAlong(
    from: string,
    to: string,
    max: number,
  ): Promise<Array<{ commit: string; text: string }> | undefined> {
    if (!/^[0-9a-f]{40,64}$/.test(from) || !/^[0-9a-f]{40,64}$/.test(to)) return undefined;
    const out: Array<{ commit: string; text: string }> = [];
    for (let id = to; ; ) {
      if (id === from) return out;
      // More than `max`: git log picks the newest by date, which a line need not be in (clocks move back).
      if (out.length === max) return undefined;
      const object = await this.objects.read(id);
      if (object?.type !== 'commit') return undefined;
      const text = object.data.toString('utf8');
      const end = text.indexOf('\n\n');
      const headers = (end < 0 ? text : text.slice(0, end)).split('\n');
      const parents = headers.filter((h) => h.startsWith('parent ')).map((h) => h.slice(7));
      if (parents.length !== 1 || headers.some((h) => h.startsWith('encoding '))) return undefined;
      out.push({ commit: id, text: end < 0 ? '' : text.slice(end + 2) });
      id = parents[0] as string;
    }
  }

  /** A file's content at a commit, or undefined when it does not exist there. */
  async showFile(rev: string, path: string): Promise<string | undefined> {
    try {
      return await this.raw(['show', `${rev}:${path}`]);
    } catch {
      return undefined;
    }
  }

  /**
   * Whether `ancestor` is reachable from `rev`. The usual case — `rev` is a few commits on top of
   * `ancestor` — is answered by walking `rev`'s first parents through the long-running lookup; anything
   * else by `merge-base --is-ancestor` (exit 0 when it is, 1 when not).
   */
  async isAncestor(ancestor: string, rev: string): Promise<boolean> {
    if (this.persistent && /^[0-9a-f]{40,64}$/.test(ancestor) && /^[0-9a-f]{40,64}$/.test(rev)) {
      for (let k = 0; k <= 20; k++) {
        const parent = await this.lookup(`${rev}~${k}`);
        if (parent === ancestor) return true;
        if (!parent) break;
      }
    }
    return (await this.exec(['merge-base', '--is-ancestor', ancestor, rev])).exitCode === 0;
  }

  /**
   * Where the repository's hooks are (its core.hooksPath, or .git/hooks), as an absolute path: the guard's
   * own hooksPath is left out of this one question (star-loop runs the project's pre-commit hook itself).
   */
  async hooksDir(): Promise<string> {
    const env = { ...process.env, ...GUARDED_ENV };
    const out = await runCapture(onPath('git'), ['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], {
      cwd: this.root,
      env,
    });
    if (out.exitCode !== 0) throw new Error(out.stderr.trim() || 'git rev-parse --git-path hooks failed');
    return out.stdout.trim();
  }

  /**
   * A throw-away worktree of star-loop's own, detached at `base`, with `head`'s changes staged on top: the
   * state a commit of the claimed changes would be made from. For running the repository's hooks.
   */
  async addStagedWorktree(dir: string, base: string, head: string): Promise<void> {
    await this.raw(['worktree', 'add', '--quiet', '--detach', dir, base]);
    await new Git(dir).raw(['read-tree', '-m', '-u', base, head]);
  }

  /**
   * The files of `commit`, written into the empty folder `dir` through a throw-away index (the real index,
   * the branch and the work tree are not touched): exactly the committed files, nothing uncommitted or
   * ignored. No `.git` of its own — the sandbox mounts the repository's, read-only — except in a linked
   * worktree, whose `.git` file (a pointer to its git directory) is copied. For the verifier and the gates.
   */
  async exportCommit(commit: string, dir: string, options: { keepIndex?: boolean } = {}): Promise<void> {
    const index = `${dir}.index`;
    try {
      const env = { GIT_INDEX_FILE: index };
      await this.raw(['read-tree', commit], env);
      await this.raw(['checkout-index', '--all', '--force', '-u', `--prefix=${dir}/`], env);
    } finally {
      if (!options.keepIndex) await rm(index, { force: true });
    }
    const dotGit = join(this.root, '.git');
    if ((await stat(dotGit).catch(() => undefined))?.isFile()) await copyFile(dotGit, join(dir, '.git'));
  }

  /**
   * A folder's files (an export's: `exportCommit` with `keepIndex`) as a tree object, through that export's
   * own index, so a second look costs what `git status` does; ignored files are left out, as git would.
   */
  async folderTree(dir: string): Promise<string> {
    const at = await this.folderArgs(dir);
    await this.raw([...at, 'add', '--all', '.'], { GIT_INDEX_FILE: `${dir}.index` });
    return (await this.raw([...at, 'write-tree'], { GIT_INDEX_FILE: `${dir}.index` })).trim();
  }

  /** Puts an export's folder back to `tree`: files written back, files not in it removed. */
  async resetFolder(dir: string, tree: string): Promise<void> {
    await this.raw([...(await this.folderArgs(dir)), 'read-tree', '-u', '--reset', tree], {
      GIT_INDEX_FILE: `${dir}.index`,
    });
  }

  private async folderArgs(dir: string): Promise<string[]> {
    this.gitDir ??= await this.tryRaw(['rev-parse', '--absolute-git-dir']);
    return ['-C', dir, `--git-dir=${this.gitDir}`, `--work-tree=${dir}`];
  }

  /** Why git would refuse `name` as a branch name (`git check-ref-format --branch`), or undefined. */
  async branchNameProblem(name: string): Promise<string | undefined> {
    const run = await this.exec(['check-ref-format', '--branch', name]);
    return run.exitCode === 0 ? undefined : run.stderr.trim().replace(/^fatal: /, '') || `'${name}' is refused`;
  }

  /** Removes a worktree star-loop added itself (never one of the user's). */
  async removeOwnWorktree(dir: string): Promise<void> {
    await this.raw(['worktree', 'remove', '--force', dir]);
  }

  /** Points a ref of star-loop's own (`refs/star-loop/…`) at a commit, so it stays reachable whatever happens. */
  async keepRef(ref: string, commit: string): Promise<void> {
    if (!ref.startsWith('refs/star-loop/')) throw new Error(`star-loop only writes its own refs, not ${ref}`);
    // One transaction per ref through the long-running `git update-ref --stdin`: no process per iteration.
    if (this.persistent && /^[0-9a-f]{40,64}$/.test(commit) && (await this.refWriter.update(ref, commit))) return;
    await this.raw(['update-ref', ref, commit]);
  }

  /** The repository's shared git directory (the main one, also from a linked worktree), absolute. */
  async gitCommonDir(): Promise<string> {
    const configFile = await this.configFile?.catch(() => undefined);
    if (configFile) return dirname(configFile);
    return (await this.raw(['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
  }

  async branchExists(name: string): Promise<boolean> {
    return (await this.tryRaw(['rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`])) !== undefined;
  }

  /** Switches to an existing branch; git refuses (and star-loop with it) if that would overwrite local changes. */
  async switchBranch(name: string): Promise<void> {
    await this.raw(['switch', '--quiet', name]);
  }

  /** Creates a branch at `base` and switches to it; never moves an existing branch. */
  async createBranch(name: string, base: string): Promise<void> {
    await this.raw(['switch', '--quiet', '--create', name, base]);
  }

  /** A new worktree of star-loop's run on `branch` (created at `base` when it does not exist). */
  async addWorktree(dir: string, branch: string, base: string): Promise<void> {
    const args = (await this.branchExists(branch))
      ? ['worktree', 'add', '--quiet', dir, branch]
      : ['worktree', 'add', '--quiet', '-b', branch, dir, base];
    await this.raw(args);
  }

  /**
   * The fleet's merge, computed without touching any work tree (`git merge-tree --write-tree`, git ≥ 2.38):
   * the merged tree, or the files that conflict and git's messages about them.
   */
  async mergeTree(ours: string, theirs: string): Promise<{ tree: string; conflicts: string[]; messages: string }> {
    const out = await this.exec(['merge-tree', '--write-tree', '--name-only', ours, theirs]);
    if (out.exitCode !== 0 && out.exitCode !== 1)
      throw new Error(out.stderr.trim() || `git merge-tree exited ${out.exitCode}`);
    return parseMergeTree(out.stdout, out.exitCode === 1);
  }

  /**
   * `tree` with one file's content replaced by the file at `contentFile`, built through a throw-away index
   * (no work tree, no real index touched). For the fleet's resolution of prd.json's `passes`.
   */
  async replaceFileInTree(tree: string, path: string, contentFile: string, indexFile: string): Promise<string> {
    const env = { GIT_INDEX_FILE: indexFile };
    const blob = (await this.raw(['hash-object', '-w', contentFile])).trim();
    await this.raw(['read-tree', tree], env);
    await this.raw(['update-index', '--cacheinfo', `100644,${blob},${path}`], env);
    return (await this.raw(['write-tree'], env)).trim();
  }

  /** A commit of `tree` with these parents (a merge when there are two); no branch moves. */
  async commitTree(tree: string, parents: string[], message: string): Promise<string> {
    const identity = await this.identityArgs();
    return (
      await this.raw([...identity, 'commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message])
    ).trim();
  }

  /**
   * Moves the checked-out branch forward to `commit` (`git merge --ff-only`): never a rewrite, and git
   * refuses rather than overwrite local changes.
   */
  async fastForward(commit: string): Promise<void> {
    await this.raw(['merge', '--ff-only', '--quiet', commit]);
  }

  /** Forgets worktrees whose folders are gone (`git worktree prune`: git's bookkeeping only, no files). */
  async pruneWorktrees(): Promise<void> {
    await this.raw(['worktree', 'prune']);
  }

  /** Renames a branch of star-loop's own (a fleet story's branch set aside for a new attempt). */
  async renameBranch(from: string, to: string): Promise<void> {
    await this.raw(['branch', '--move', from, to]);
  }

  /** Removes a worktree only when git agrees nothing in it would be lost (no `--force`). */
  async removeCleanWorktree(dir: string): Promise<void> {
    await this.raw(['worktree', 'remove', dir]);
  }

  async resolve(rev: string): Promise<string | undefined> {
    return this.lookup(`${rev}^{commit}`);
  }

  private commonDir?: string;
  private remotesCache?: { stamp: string; list: Array<{ name: string; url: string }> };

  /**
   * The remotes and their fetch URLs. Asked before and after every agent run, so the answer is kept while
   * the repository's config file is the same file (git rewrites it through a new file on every change).
   */
  async remotes(): Promise<Array<{ name: string; url: string }>> {
    this.commonDir ??= await this.gitCommonDir();
    const st = await stat(join(this.commonDir, 'config')).catch(() => undefined);
    const stamp = st ? `${st.ino}:${st.size}:${st.mtimeMs}` : undefined;
    if (stamp && this.remotesCache?.stamp === stamp) return this.remotesCache.list;
    const list = await this.listRemotes();
    if (stamp) this.remotesCache = { stamp, list };
    return list;
  }

  private async listRemotes(): Promise<Array<{ name: string; url: string }>> {
    return parseRemotes((await this.tryRaw(['remote', '-v'])) ?? '');
  }

  /** `ref → commit` for every ref under `prefix` (e.g. `refs/remotes/`): read from git's files, no process. */
  async refs(prefix: string): Promise<Map<string, string>> {
    const configFile = await this.configFile?.catch(() => undefined);
    const fromFiles = configFile ? await readRefs(dirname(configFile), prefix) : undefined;
    if (fromFiles) return fromFiles;
    return parseRefLines((await this.tryRaw(['for-each-ref', '--format=%(refname) %(objectname)', prefix])) ?? '', ' ');
  }

  /** The subject of a ref's newest reflog entry, e.g. "update by push". */
  async lastReflog(ref: string): Promise<string | undefined> {
    return this.tryRaw(['log', '-g', '-1', '--format=%gs', ref]);
  }

  /** The refs of a remote given by a local path, read without any network. */
  async localRemoteRefs(path: string): Promise<Map<string, string>> {
    return parseRefLines((await this.tryRaw(['ls-remote', path])) ?? '', '\t');
  }

  /**
   * A commit holding the work tree as it is now (tracked and untracked files), made through a throw-away
   * index: the branch, the real index and the files are not touched. For keeping a copy on a ref.
   */
  async snapshotWorkTree(message: string, parent: string, indexFile: string): Promise<string> {
    const env = { GIT_INDEX_FILE: indexFile };
    await this.raw(['read-tree', parent], env);
    await this.raw(['add', '--all'], env);
    const tree = (await this.raw(['write-tree'], env)).trim();
    const identity = await this.identityArgs();
    return (await this.raw([...identity, 'commit-tree', tree, '-p', parent, '-m', message])).trim();
  }

  private identity?: Promise<{ name: string; email: string }>;

  /**
   * star-loop's own commits carry the user's identity (the user's whole config as star-loop first read it,
   * before any agent ran), or a fallback when there is none.
   */
  private identityOf(): Promise<{ name: string; email: string }> {
    this.identity ??= (async () => {
      await this.driverGuard();
      const configFile = await this.configFile?.catch(() => undefined);
      const all = (configFile ? await trustedByRepo.get(configFile) : undefined)?.all ?? '';
      const name = configValues(all, 'user.name').at(-1)?.trim() ?? '';
      const email = configValues(all, 'user.email').at(-1)?.trim() ?? '';
      return email ? { name: name || email, email } : FALLBACK_IDENTITY;
    })();
    return this.identity;
  }

  private async identityArgs(): Promise<string[]> {
    const { name, email } = await this.identityOf();
    return ['-c', `user.name=${name}`, '-c', `user.email=${email}`];
  }

  /**
   * A commit of `tree` on `parents`, written through the long-running writer when git would write exactly
   * the text star-loop builds (src/git/long-running.ts commitText): no identity or date from the environment,
   * no other commit encoding configured. Otherwise `commit-tree`.
   */
  private async writeCommit(tree: string, parents: string[], message: string): Promise<string> {
    const { name, email } = await this.identityOf();
    const fromEnv = IDENTITY_ENV.some((key) => process.env[key] !== undefined);
    const encodings = this.guardCache ? configValues(await this.guardCache.config, 'i18n.commitencoding') : [];
    const now = new Date();
    const text =
      this.persistent && this.commitWriter && !fromEnv && encodings.every((e) => /^utf-?8$/i.test(e))
        ? commitText({
            tree,
            parents,
            name,
            email,
            message,
            seconds: Math.floor(now.getTime() / 1000),
            offsetMinutes: -now.getTimezoneOffset(),
          })
        : undefined;
    const written = text ? await this.commitWriter?.write(text) : undefined;
    if (written) return written;
    const identity = await this.identityArgs();
    return (
      await this.raw([...identity, 'commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message])
    ).trim();
  }

  /** Writes star-loop's commits (commitAll): made once the index's path is known. */
  private commitWriter?: CommitWriter;

  /** The index file's path: it never changes for a repository (or a worktree), so it is asked once. */
  private indexPath?: Promise<string>;

  /**
   * Commits the work tree as it is on disk (star-loop's own files are ignored by `.star/.gitignore`), from a
   * tree star-loop computes itself: a copy of the index with every skip-worktree and assume-unchanged flag
   * cleared, so nothing an agent did to the index can hide a change. The branch moves only if HEAD is still
   * where it was (no force), and the real index becomes that copy. No hooks: this commit is a save point,
   * not a claim — claims are verified by re-running the gates. Returns the new commit, or undefined when
   * there was nothing to commit. `changes`: what `git status` listed just before (workingChanges), when
   * nothing has run since — with the index star-loop itself wrote last, only those paths are added, not
   * the whole tree scanned a second time, and (kept alive, HEAD still at the tree that index records) without
   * an index process: star-loop writes the blobs, the trees and the index itself (commit-from-index.ts),
   * or leaves to `update-index` and `write-tree` what it cannot write exactly as they would.
   */
  async commitAll(message: string, changes?: readonly WorkingChange[]): Promise<string | undefined> {
    this.indexPath ??= this.raw(['rev-parse', '--path-format=absolute', '--git-path', 'index']).then((p) => p.trim());
    const index = await this.indexPath.catch((error: unknown) => {
      this.indexPath = undefined;
      throw error;
    });
    const scratch = `${index}.star-loop-${process.pid}`;
    this.commitWriter ??= new CommitWriter(this.guarded, `${index}.star-loop-commit-${process.pid}`);
    try {
      const env = { GIT_INDEX_FILE: scratch };
      const head = await this.head();
      const found = await stat(index, { bigint: true }).catch(() => undefined);
      // The index star-loop wrote last, untouched since (its inode and change time say so: no one can set a
      // ctime back), holds no flags (they were cleared in it) and matches the tree star-loop committed.
      const own = found !== undefined && fileStamp(found) === this.ownIndex?.stamp;
      const headTree = head ? await this.tree(head) : undefined;
      if (own && changes && head && headTree && headTree === this.ownIndex?.tree) {
        const fast = await this.commitWithoutIndexProcess(index, scratch, head, headTree, message, changes);
        if (fast) return fast.commit;
      }
      if (found) {
        // The copy keeps the index's mtime: git trusts an entry's stat data only when the file is older than
        // the index, so a newer copy would hide a same-size edit made in the second the index was written.
        await copyFile(index, scratch);
        await utimes(scratch, found.atime, found.mtime);
      } else if (head) await this.raw(['read-tree', head], env);
      if (!own) {
        const flagged = parseFlaggedEntries(await this.raw(['ls-files', '-v', '-t', '-z'], env));
        // One flag per call: update-index applies only the last such option it is given.
        for (const [flag, paths] of [
          ['--no-skip-worktree', flagged.skipWorktree],
          ['--no-assume-unchanged', flagged.assumeUnchanged],
        ] as const) {
          if (paths.length > 0) await this.raw(['update-index', flag, '-z', '--stdin'], env, paths.join('\0'));
        }
      }
      // Every path where the work tree differs from this index is in what status listed (it compares them
      // as `add --all` would); an untracked repository inside (`dir/`) is left to `add --all`.
      if (own && changes && !changes.some((c) => c.path.endsWith('/'))) {
        const paths = changes.map((c) => `${c.path}\0`).join('');
        if (paths) await this.raw(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], env, paths);
      } else await this.raw(['add', '--all'], env);
      const tree = (await this.raw(['write-tree'], env)).trim();
      const commit = await this.commitTo(tree, head, headTree, message);
      await rename(scratch, index);
      this.ownIndex = { stamp: fileStamp(await stat(index, { bigint: true })), tree };
      return commit;
    } finally {
      await rm(scratch, { force: true });
    }
  }

  /** A commit of `tree` on `head` with HEAD moved to it, unless the tree is HEAD's (then undefined). */
  private async commitTo(
    tree: string,
    head: string | undefined,
    headTree: string | undefined,
    message: string,
  ): Promise<string | undefined> {
    if (head && tree === headTree) return undefined;
    const commit = await this.writeCommit(tree, head ? [head] : [], message);
    // Only while HEAD is still where the work was found (the old value is checked in both ways).
    const moved = this.persistent && head !== undefined && (await this.headWriter.update('HEAD', commit, head));
    if (!moved)
      await this.raw(['update-ref', '-m', `star-loop: ${message.split('\n')[0]}`, 'HEAD', commit, head ?? '']);
    return commit;
  }

  /**
   * commitAll from star-loop's own index, through long-running helpers (src/git/commit-from-index.ts): no
   * process. Undefined when that cannot be done exactly as git would (the caller runs git's commands).
   */
  private async commitWithoutIndexProcess(
    index: string,
    scratch: string,
    head: string,
    headTree: string,
    message: string,
    changes: readonly WorkingChange[],
  ): Promise<{ commit: string | undefined } | undefined> {
    if (!this.persistent) return undefined;
    const guard = await this.driverGuard();
    const config = this.guardCache ? await this.guardCache.config : '';
    // Without core.fileMode git keeps a file's recorded mode; that is left to git.
    if (!/^(true|yes|on|1)?$/i.test(configValues(config, 'core.filemode').at(-1) ?? '')) return undefined;
    const hashBytes = head.length / 2;
    const built = await commitFromIndex(
      this.root,
      await readFile(index),
      hashBytes,
      [...new Set(changes.map((c) => c.path))],
      {
        hashFiles: (paths) => this.treeWriter.hashFiles(paths, [...ALWAYS_OFF, ...guard]),
        makeTree: (entries) => this.treeWriter.makeTree(entries),
        headSubtree: async (path) => (await this.batch.resolve(`${headTree}:${path}`)) ?? null,
      },
    );
    if (typeof built === 'string') return undefined;
    const commit = await this.commitTo(built.tree, head, headTree, message);
    const write = async (entries: Entries) => {
      const parts = serializeIndex(built.index, entries, built.cacheTree);
      const hash = createHash(hashBytes === 32 ? 'sha256' : 'sha1');
      for (const part of parts) hash.update(part);
      const file = await open(scratch, 'w');
      try {
        await file.writev([...parts, hash.digest()]);
        return await file.stat({ bigint: true });
      } finally {
        await file.close();
      }
    };
    // An entry as new as the index itself is marked for git to compare by content (git's "racily clean").
    const written = await write(built.entries);
    const racy = new Set(built.written.filter((e) => entryMtimeNs(e) >= written.mtimeNs));
    if (racy.size > 0) {
      const parts = built.entries.parts.map((p) => ('from' in p || !racy.has(p) ? p : smudged(p)));
      await write(new Entries(built.index, parts));
    }
    await rename(scratch, index);
    this.ownIndex = { stamp: fileStamp(await stat(index, { bigint: true })), tree: built.tree };
    return { commit };
  }

  /** The index as star-loop left it after its last commit (see commitAll), and the tree it records. */
  private ownIndex?: { stamp: string; tree: string };
}

/** A file's identity and every time git or anyone can change about it. */
function fileStamp(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** Environment variables that give commit-tree another identity or date than star-loop's. */
const IDENTITY_ENV = [
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
];

/** `git diff` arguments of the name-status diff (renames followed), the one asked every iteration. */
const NAME_STATUS: readonly string[] = ['--name-status', '-z', '-M'];

/**
 * `git diff` arguments of the zero-context patch the secret scan reads. --text: a `-diff` or `binary`
 * attribute must not hide text from the checks; no textconv, no external diff.
 */
const UNIFIED: readonly string[] = ['-U0', '--no-color', '--text', '--no-textconv', '--no-ext-diff', '-M'];

/** The reflog's reason when star-loop moves HEAD to its commit of the agent's work. */
const HEAD_REASON = "star-loop: committed the agent's work";

/** The default branch by the first source that names one (pure). */
function pickDefaultBranch(
  remoteHead: string | undefined,
  configured: string | undefined,
  main: boolean,
  master: boolean,
): { name?: string; source: string } {
  if (remoteHead) return { name: remoteHead, source: 'origin/HEAD' };
  if (configured) return { name: configured, source: 'init.defaultBranch' };
  if (main) return { name: 'main', source: 'refs/heads/main' };
  if (master) return { name: 'master', source: 'refs/heads/master' };
  return { source: 'none found' };
}

/** Every value of `key` (lower case) in `git config --list -z` output, in order (pure). */
function configValues(list: string, key: string): string[] {
  const values: string[] = [];
  for (const entry of list.split('\0')) {
    const newline = entry.indexOf('\n');
    // A key with no `=` (a boolean) has no newline: it means true.
    if ((newline < 0 ? entry : entry.slice(0, newline)).toLowerCase() === key)
      values.push(newline < 0 ? 'true' : entry.slice(newline + 1));
  }
  return values;
}
