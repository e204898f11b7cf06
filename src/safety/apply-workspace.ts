import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { RunOptions } from '../config/options.js';
import { RefusedError } from '../errors.js';
import { Git } from '../git/git.js';
import type { WorkspacePlan } from './decide-workspace.js';

/**
 * Carries out the workspace plan and returns the options for the loop (in worktree mode its root and
 * prd.json are the worktree's). Switching uses plain `git switch`, which refuses to overwrite local work.
 */
export async function applyWorkspace(
  plan: WorkspacePlan,
  git: Git,
  options: RunOptions,
): Promise<{ options: RunOptions; git: Git; branch: string; worktree?: string }> {
  if (plan.kind === 'refuse') throw new RefusedError(plan.message, plan.hint);
  try {
    if (plan.kind === 'here') {
      if (plan.action === 'switch') await git.switchBranch(plan.branch);
      if (plan.action === 'create') await git.createBranch(plan.branch, plan.base ?? 'HEAD');
      return { options, git, branch: plan.branch };
    }
    if (plan.action === 'create') {
      await mkdir(dirname(plan.dir), { recursive: true });
      await git.addWorktree(plan.dir, plan.branch, plan.base);
    }
  } catch (error) {
    throw new RefusedError(
      `could not prepare the branch "${plan.branch}": ${(error as Error).message.trim()}`,
      'resolve what git says above, then run again',
    );
  }
  const tree = new Git(plan.dir);
  let prdFile = options.prdFile;
  if (options.prdFile) {
    // The loop works on the worktree's prd.json; bring the user's current one over if it differs.
    prdFile = join(plan.dir, relative(options.root, options.prdFile));
    const [mine, theirs] = await Promise.all([
      readFile(options.prdFile, 'utf8'),
      readFile(prdFile, 'utf8').catch(() => undefined),
    ]);
    if (theirs === undefined || (plan.action === 'create' && theirs !== mine)) {
      await mkdir(dirname(prdFile), { recursive: true });
      await copyFile(options.prdFile, prdFile);
      await tree.commitAll(`star-loop: bring ${relative(options.root, options.prdFile)} into the loop's worktree`);
    }
  }
  return { options: { ...options, root: plan.dir, prdFile }, git: tree, branch: plan.branch, worktree: plan.dir };
}
