import type { Git } from './git.js';
import type { WorkingChange } from './parse-git-output.js';

export interface GitState {
  root: string;
  branch?: string;
  defaultBranch?: string;
  defaultBranchSource: string;
  head?: string;
  /** Uncommitted changes outside `.star/`. */
  changes: WorkingChange[];
}

export async function readGitState(git: Git): Promise<GitState> {
  const [branch, def, head, changes] = await Promise.all([
    git.currentBranch(),
    git.defaultBranch(),
    git.head(),
    git.workingChanges(),
  ]);
  return { root: git.root, branch, defaultBranch: def.name, defaultBranchSource: def.source, head, changes };
}
