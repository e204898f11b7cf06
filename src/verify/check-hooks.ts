import { existsSync } from 'node:fs';
import { access, appendFile, constants, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../git/git.js';
import { runProcess } from '../proc/run-process.js';
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
}

/** Runs the hook in a throw-away worktree at `base` with the changes up to `head` staged. */
async function runHook(input: HookCheck, hook: string, tree: string, head: string) {
  try {
    await input.git.addStagedWorktree(tree, input.base, head);
    // Hooks run tools the project installed (husky, lint-staged, …): let them find them.
    if (existsSync(join(input.root, 'node_modules')) && !existsSync(join(tree, 'node_modules'))) {
      await symlink(join(input.root, 'node_modules'), join(tree, 'node_modules'));
    }
    return await runProcess({
      command: hook,
      args: [],
      cwd: tree,
      env: input.env,
      logFile: input.logFile,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
      redactor: input.redactor,
    });
  } finally {
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
        } on the claimed changes, so they were committed with the hook bypassed (--no-verify)`,
        output: run.tail,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
