import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { RunOptions } from '../config/options.js';
import type { GitState } from '../git/read-git-state.js';

export type WorkspacePlan =
  | { kind: 'refuse'; why: 'default-branch' | 'checked-out' | 'detached' | 'dirty'; message: string; hint: string }
  | { kind: 'here'; branch: string; action: 'stay' | 'switch' | 'create'; base?: string }
  | { kind: 'worktree'; branch: string; dir: string; action: 'reuse' | 'create'; base: string };

/** A branch name for a `--worktree` run that is the same every time the same command runs (so it resumes). */
export function defaultLoopBranch(options: RunOptions): string {
  if (options.prdFile) return `star-loop/${basename(options.prdFile).replace(/\.json$/, '')}`;
  return `star-loop/task-${createHash('sha256')
    .update(options.task ?? '')
    .digest('hex')
    .slice(0, 8)}`;
}

export function worktreeDir(root: string, branch: string): string {
  return join(dirname(root), `${basename(root)}.star-loop`, branch.replace(/[^\w.-]+/g, '-'));
}

/**
 * Where the loop will run, decided before anything changes: refuse a dirty tree or the default branch
 * (unless allowed), switch to or create the PRD's `branchName` / `--branch`, or set up a worktree.
 */
export function decideWorkspace(input: {
  options: RunOptions;
  git: GitState;
  target?: string;
  targetExists: boolean;
  worktreeExists: boolean;
}): WorkspacePlan {
  const { options, git, target } = input;
  const def = git.defaultBranch;
  if (options.worktree) {
    const branch = target ?? defaultLoopBranch(options);
    if (branch === def && !options.allowDefaultBranch) {
      return {
        kind: 'refuse',
        why: 'default-branch',
        message: `the loop's branch "${branch}" is the default branch`,
        hint: 'choose another with --branch NAME (or --allow-default-branch)',
      };
    }
    if (branch === git.branch) {
      return {
        kind: 'refuse',
        why: 'checked-out',
        message: `"${branch}" is checked out here, so it cannot have a worktree of its own`,
        hint: `run without --worktree, or use --branch ${branch}-loop`,
      };
    }
    return {
      kind: 'worktree',
      branch,
      dir: worktreeDir(git.root, branch),
      action: input.worktreeExists ? 'reuse' : 'create',
      base: options.base ?? 'HEAD',
    };
  }
  const branch = target ?? git.branch;
  if (!branch) {
    return {
      kind: 'refuse',
      why: 'detached',
      message: 'HEAD is detached: the loop needs a branch to commit on',
      hint: 'git switch -c star-loop/work',
    };
  }
  if (branch === def && !options.allowDefaultBranch) {
    return {
      kind: 'refuse',
      why: 'default-branch',
      message: `refusing to run on the default branch "${branch}": the agent's commits would land there`,
      hint: target
        ? 'set another branchName in prd.json or pass --branch NAME (or --allow-default-branch)'
        : 'git switch -c star-loop/work   (or --branch NAME, --worktree, --allow-default-branch)',
    };
  }
  if (git.changes.length > 0 && !options.allowDirty) {
    const names = git.changes
      .slice(0, 3)
      .map((c) => c.path)
      .join(', ');
    return {
      kind: 'refuse',
      why: 'dirty',
      message:
        `the work tree has ${git.changes.length} uncommitted change(s) ` +
        `(${names}${git.changes.length > 3 ? ', …' : ''}): they would be mixed into the agent's work`,
      hint: 'git add -A && git commit -m "wip"   (or --worktree to leave them alone, or --allow-dirty)',
    };
  }
  if (branch === git.branch) return { kind: 'here', branch, action: 'stay' };
  return input.targetExists
    ? { kind: 'here', branch, action: 'switch' }
    : { kind: 'here', branch, action: 'create', base: options.base ?? 'HEAD' };
}

export function describeWorkspace(plan: WorkspacePlan): string {
  switch (plan.kind) {
    case 'refuse':
      return `REFUSED — ${plan.message} (fix: ${plan.hint})`;
    case 'here':
      return plan.action === 'stay'
        ? `on "${plan.branch}"`
        : plan.action === 'switch'
          ? `switch to the existing branch "${plan.branch}"`
          : `create "${plan.branch}" from ${plan.base} and switch to it`;
    case 'worktree':
      return (
        `${plan.action === 'reuse' ? 'reuse the' : 'a new'} worktree ${plan.dir} on ` +
        `"${plan.branch}"${plan.action === 'create' ? ` (from ${plan.base} if the branch is new)` : ''}; ` +
        `your checkout is not touched`
      );
  }
}
