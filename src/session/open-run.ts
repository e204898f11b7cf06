import type { RunOptions } from '../config/options.js';
import type { Git } from '../git/git.js';
import type { Recon } from '../recon/run-recon.js';
import { applyWorkspace } from '../safety/apply-workspace.js';
import { acquireLock } from '../state/lock.js';
import { prepareStarDir } from '../state/prepare-star-dir.js';
import { type StarPaths, starPaths } from '../state/star-paths.js';

/** Where the run works once its workspace is set up, and the lock it holds there. */
export interface OpenedRun {
  /** The options for the loop: in a worktree, its root and prd.json are the worktree's. */
  options: RunOptions;
  git: Git;
  paths: StarPaths;
  branch: string;
  worktree?: string;
  /** A stale lock taken over, said at start. */
  lockWarnings: string[];
  release: () => Promise<void>;
}

/**
 * The lock, then the workspace the plan decided (switch or create the branch, or a worktree). In the
 * user's checkout the lock comes first, so a second run here is refused before any branch changes; a
 * --worktree run's lock is in its worktree, made by the workspace step.
 */
export async function openRun(recon: Pick<Recon, 'options' | 'git' | 'workspace'>): Promise<OpenedRun> {
  const lockWarnings: string[] = [];
  const takeLock = async (root: string) => {
    const paths = starPaths(root);
    await prepareStarDir(paths.dir, 'runs');
    return acquireLock(paths.lock, (message) => lockWarnings.push(message));
  };
  const early = recon.workspace.kind === 'here' ? await takeLock(recon.options.root) : undefined;
  const applied = await applyWorkspace(recon.workspace, recon.git, recon.options).catch(async (error: unknown) => {
    await early?.();
    throw error;
  });
  const release = early ?? (await takeLock(applied.options.root));
  applied.git.keepAlive();
  return { ...applied, paths: starPaths(applied.options.root), lockWarnings, release };
}
