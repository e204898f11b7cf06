import { existsSync } from 'node:fs';
import { access, constants, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../git/git.js';
import { runProcess } from '../proc/run-process.js';
import type { Finding } from './finding.js';

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Commits can skip the repository's pre-commit hook (`--no-verify`, or star-loop's own save commits). So
 * star-loop runs the hook itself on the claimed changes: in a throw-away worktree at `base` with the
 * changes up to `head` staged, exactly what a commit of them would be checked against.
 */
export async function checkHooks(input: {
  git: Git;
  root: string;
  base: string;
  head: string;
  logFile: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}): Promise<Finding[]> {
  if (input.base === input.head) return [];
  const hook = join(await input.git.hooksDir(), 'pre-commit');
  if (!(await executable(hook))) return [];
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-hooks-'));
  const tree = join(dir, 'tree');
  try {
    await input.git.addStagedWorktree(tree, input.base, input.head);
    // Hooks run tools the project installed (husky, lint-staged, …): let them find them.
    if (existsSync(join(input.root, 'node_modules')) && !existsSync(join(tree, 'node_modules'))) {
      await symlink(join(input.root, 'node_modules'), join(tree, 'node_modules'));
    }
    const run = await runProcess({
      command: hook,
      args: [],
      cwd: tree,
      env: input.env,
      logFile: input.logFile,
      timeoutMs: input.timeoutMs,
      signal: input.signal,
    });
    if (run.aborted || (run.exitCode === 0 && !run.timedOut)) return [];
    return [
      {
        rule: 'hooks-bypassed',
        file: hook.startsWith(input.root) ? hook.slice(input.root.length + 1) : hook,
        detail: `the repository's pre-commit hook ${run.timedOut ? 'timed out' : `fails (exit ${run.exitCode ?? run.signal})`} on the claimed changes, so they were committed with the hook bypassed (--no-verify)`,
        output: run.tail,
      },
    ];
  } finally {
    await input.git.removeOwnWorktree(tree).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}
