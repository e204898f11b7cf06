import { existsSync } from 'node:fs';
import { access, appendFile, constants, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../git/git.js';
import { runProcess } from '../proc/run-process.js';
import type { Box, Sandbox } from '../sandbox/sandbox.js';
import type { Finding } from '../state/finding-schema.js';

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

interface HookCheck {
  git: Git;
  root: string;
  base: string;
  head: string;
  logFile: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  redactor?: { redact: (text: string) => string; longest: number };
  /** The run's sandbox: the hook runs in it like a gate (no network, the trusted dependencies read-only). */
  sandbox?: Sandbox;
  dependencyDirs: readonly string[];
}

/** Runs the hook in a throw-away worktree at `base` with the changes up to `head` staged. */
async function runHook(input: HookCheck, hook: string, tree: string, head: string) {
  let box: Box | undefined;
  try {
    await input.git.addStagedWorktree(tree, input.base, head);
    // Hooks run tools the project installed (husky, lint-staged, …): let them find them.
    const deps = input.dependencyDirs.filter((d) => existsSync(join(input.root, d)));
    if (input.sandbox) {
      const dependencies = deps.map((d) => ({ from: join(input.root, d), to: join(tree, d) }));
      box = await input.sandbox.box({ tree, at: tree, treeWritable: true, dependencies });
    } else {
      for (const d of deps) {
        if (!existsSync(join(tree, d))) await symlink(join(input.root, d), join(tree, d)).catch(() => undefined);
      }
    }
    const run = { command: hook, args: [] as string[], env: input.env as Record<string, string | undefined> };
    return await runProcess({
      ...(box ? box.wrap(run) : run),
      cwd: tree,
      logFile: input.logFile,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      redactor: input.redactor,
    });
  } finally {
    await box?.close();
    await input.git.removeOwnWorktree(tree).catch(() => {});
  }
}

/**
 * Commits can skip the repository's pre-commit hook (`--no-verify`, or star-loop's own save commits). So
 * star-loop runs the hook itself on the claimed changes: in a throw-away worktree at `base` with the
 * changes up to `head` staged, exactly what a commit of them would be checked against.
 */
export async function checkHooks(input: HookCheck): Promise<Finding[]> {
  if (input.base === input.head) return [];
  const hook = join(await input.git.hooksDir(), 'pre-commit');
  if (!(await executable(hook))) return [];
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-hooks-'));
  try {
    const run = await runHook(input, hook, join(dir, 'tree'), input.head);
    if (run.aborted || (run.exitCode === 0 && !run.timedOut)) return [];
    // A hook that fails even with nothing staged is broken here: it says nothing about the claim.
    const empty = await runHook(input, hook, join(dir, 'empty'), input.base);
    if (empty.exitCode !== 0 || empty.timedOut) {
      await appendFile(
        input.logFile,
        '\nstar-loop: the hook fails even with nothing staged, so it is not held against the claim\n',
      );
      return [];
    }
    return [
      {
        rule: 'hooks-bypassed',
        file: hook.startsWith(input.root) ? hook.slice(input.root.length + 1) : hook,
        detail: `the repository's pre-commit hook ${
          run.timedOut ? 'timed out' : `fails (exit ${run.exitCode ?? run.signal})`
        } on the claimed changes: a commit of them would not pass it (it was bypassed)`,
        output: run.tail,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
