import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Git } from '../git/git.js';
import type { WorkingChange } from '../git/parse-git-output.js';
import { parseUnifiedDiff } from '../git/parse-unified-diff.js';
import type { Finding } from '../state/finding-schema.js';
import { candidateLines } from './candidate-lines.js';
import { type Fingerprints, fingerprintChanges, takeFingerprints } from './fingerprints.js';
import { matchesAny } from './glob.js';
import { ProtectedWalk, protectedChanges } from './protected-files.js';
import { pushedSince, type RemoteSnapshot, snapshotRemotes } from './remote-refs.js';
import { secretRuleOf } from './secret-rules.js';

export interface Guard {
  git: Git;
  root: string;
  gitDir: string;
  starDir: string;
  branch?: string;
  protectedPaths: readonly string[];
  allowPush: boolean;
  /**
   * The agent runs in the sandbox (no network but its model's, no other repository writable): a remote ref
   * that moved during its run, other than the run's branch, was moved by someone else.
   */
  contained?: boolean;
  promptFile?: string;
  prdFile?: string;
  /** The protected files' walk, kept between checks (src/safety/protected-files.ts); a fresh one without. */
  walk?: ProtectedWalk;
}

const protectedNow = (guard: Guard) => (guard.walk ?? new ProtectedWalk(guard.root, guard.protectedPaths)).files();

export interface GuardSnapshot {
  head?: string;
  remotes?: RemoteSnapshot;
  fingerprints: Fingerprints;
  /** Every protected file on disk, hashed. */
  protectedFiles: Map<string, string>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Taken right before an agent process starts. */
export async function guardSnapshot(guard: Guard): Promise<GuardSnapshot> {
  return {
    head: await guard.git.head(),
    remotes: guard.allowPush ? undefined : await snapshotRemotes(guard.git, guard.root),
    fingerprints: await takeFingerprints(guard),
    protectedFiles: protectedNow(guard),
  };
}

/** A file's lines that may hold a secret (candidate-lines.ts), streamed as Latin-1: any byte is a character. */
async function scanFile(file: string, onLine: (line: string, n: number) => void): Promise<void> {
  const stream = createReadStream(file, { encoding: 'latin1', highWaterMark: 1 << 20 });
  try {
    await candidateLines(stream as AsyncIterable<string>, onLine);
  } catch {
    // A file gone, or a folder (a submodule): nothing of it to scan.
  } finally {
    stream.destroy();
  }
}

/**
 * The lines of `path` at `rev` that hold a secret, counted by text (split and decoded as `scanFile` reads:
 * a byte that is not UTF-8 comes back changed, so its line is never matched and counts as added).
 */
async function secretLinesAt(git: Git, rev: string, path: string): Promise<Map<string, number>> {
  const lines = new Map<string, number>();
  const text = await git.showFile(rev, path);
  await candidateLines([Buffer.from(text ?? '', 'utf8').toString('latin1')], (line) => {
    if (secretRuleOf(line, path)) lines.set(line, (lines.get(line) ?? 0) + 1);
  });
  return lines;
}

/** Added lines that hold a secret: committed since `from`, and in uncommitted files (tracked or not). */
async function secrets(
  git: Git,
  root: string,
  from: string | undefined,
  head: string | undefined,
  working: readonly WorkingChange[],
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const reported = new Set<string>();
  const scan = (file: string, line: number, text: string) => {
    const rule = secretRuleOf(text, file);
    // Once each (a very long line is read in parts). The finding names the rule, file and line, never the value.
    if (rule && !reported.has(`${file}\0${line}\0${rule}`)) {
      reported.add(`${file}\0${line}\0${rule}`);
      findings.push({
        rule: `secret:${rule}`,
        file,
        line,
        detail: `a secret (${rule}) was added at ${file}:${line}; it is not shown here`,
      });
    }
  };
  // What the agent committed, asked of git at once: the diff's added lines, the files, the messages.
  const [diff, changedFiles, messages] =
    from && head && from !== head
      ? await Promise.all([git.unifiedDiff(from, head), git.changedFiles(from, head), git.commitMessages(from, head)])
      : [undefined, [], []];
  if (diff !== undefined) {
    const textual = new Set<string>();
    for (const file of parseUnifiedDiff(diff)) {
      if (file.path) textual.add(file.path);
      for (const l of file.added) scan(file.path, l.line, l.text);
    }
    // A committed file the diff shows no lines of (binary: "Binary files differ"): its whole content, streamed.
    const uncommitted = new Set(working.map((w) => w.path));
    for (const f of changedFiles) {
      if (f.status.startsWith('D') || textual.has(f.path) || uncommitted.has(f.path)) continue;
      await scanFile(join(root, f.path), (line, n) => scan(f.path, n, line));
    }
  }
  for (const change of working) {
    if (change.code.includes('D')) continue;
    // Whatever its size or bytes: read as a stream, bytes as Latin-1, so a NUL or a gigabyte hides nothing.
    const found: Array<{ line: number; text: string }> = [];
    await scanFile(join(root, change.path), (text, line) => {
      if (secretRuleOf(text, change.path)) found.push({ line, text });
    });
    if (found.length === 0) continue;
    // A file HEAD already has: its lines that held a secret there were not added (an agent editing a doc with
    // AWS's example key). Only the occurrences beyond HEAD's count, the later ones, are.
    const before =
      change.code === '??' || !head ? new Map<string, number>() : await secretLinesAt(git, head, change.path);
    for (const { line, text } of found) {
      const left = before.get(text) ?? 0;
      if (left > 0) before.set(text, left - 1);
      else scan(change.path, line, text);
    }
  }
  // A secret in a commit message or a file name is committed all the same.
  for (const message of messages) {
    const rule = message.text
      .split('\n')
      .map((l) => secretRuleOf(l))
      .find(Boolean);
    const commit = message.commit.slice(0, 10);
    if (rule)
      findings.push({
        rule: `secret:${rule}`,
        detail: `a secret (${rule}) is in the message of commit ${commit}; it is not shown here`,
      });
  }
  const changed = changedFiles.flatMap((f) => (f.oldPath ? [f.oldPath, f.path] : [f.path]));
  for (const path of new Set([...working.map((c) => c.path), ...changed])) {
    const rule = secretRuleOf(path);
    if (rule)
      findings.push({ rule: `secret:${rule}`, detail: `a secret (${rule}) is in a file name; it is not shown here` });
  }
  return findings;
}

/**
 * After an agent ran, before star-loop touches anything: is the loop still on its branch, is the previous
 * HEAD still an ancestor (no amend, rebase, reset or force), did anything reach a remote, did the agent
 * change a protected path, a pinned file or prd.json's stories, or add a secret? Every violation ends
 * the run with exit 5; nothing is undone.
 */
/** `working`: the uncommitted changes, when the caller has just read them (one `git status` serves both). */
export async function checkSafety(
  guard: Guard,
  before: GuardSnapshot,
  working?: readonly WorkingChange[],
  notices: string[] = [],
): Promise<Finding[]> {
  const { git } = guard;
  const uncommitted = working ?? (await git.workingChanges());
  const violations: Finding[] = [];
  const head = await git.head();
  const branch = await git.currentBranch();
  if (guard.branch && branch !== guard.branch) {
    violations.push({
      rule: 'branch-switched',
      detail: `the loop runs on "${guard.branch}" but HEAD is now ${branch ? `on "${branch}"` : 'detached'}`,
    });
  }
  const branchHead = guard.branch ? await git.resolve(`refs/heads/${guard.branch}`) : head;
  const rewritten = Boolean(
    before.head && branchHead && before.head !== branchHead && !(await git.isAncestor(before.head, branchHead)),
  );
  if (rewritten || (before.head && !branchHead)) {
    violations.push({
      rule: 'history-rewritten',
      detail:
        `the previous HEAD ${before.head?.slice(0, 10)} is no longer an ancestor of ` +
        `${guard.branch ?? 'HEAD'} (${branchHead?.slice(0, 10) ?? 'deleted'}): amend, rebase, reset or a ` +
        `forced update`,
    });
  }
  if (before.remotes) {
    for (const ref of await pushedSince(git, before.remotes, await snapshotRemotes(git, guard.root))) {
      const runBranch =
        guard.branch !== undefined && new RegExp(`(/| refs/heads/)${escapeRegExp(guard.branch)}$`).test(ref);
      if (guard.contained && !runBranch) {
        notices.push(
          `${ref} moved during the agent's run: the sandboxed agent cannot reach it, so someone else pushed ` +
            '(not held against the agent)',
        );
        continue;
      }
      violations.push({ rule: 'pushed', detail: `something was pushed to ${ref} although pushing is blocked` });
    }
  }
  const touched = new Set<string>();
  if (before.head && head && !rewritten && before.head !== head) {
    for (const f of await git.changedFiles(before.head, head))
      for (const p of [f.path, f.oldPath]) if (p) touched.add(p);
  }
  for (const c of uncommitted) touched.add(c.path);
  // On disk too: an ignored file, or one an index flag hides from git, is still the agent's edit.
  for (const path of protectedChanges(before.protectedFiles, protectedNow(guard))) {
    touched.add(path);
  }
  for (const path of touched) {
    const glob = matchesAny(path, guard.protectedPaths);
    if (glob) violations.push({ rule: 'protected-path', file: path, detail: `${path} is protected (${glob})` });
  }
  for (const change of fingerprintChanges(guard.root, before.fingerprints, await takeFingerprints(guard))) {
    violations.push({
      rule: 'pinned-file-changed',
      file: change.startsWith('prd.json ') ? 'prd.json' : change,
      detail: `${change} changed; it is pinned for the run`,
    });
  }
  violations.push(...(await secrets(git, guard.root, rewritten ? undefined : before.head, head, uncommitted)));
  return violations;
}
