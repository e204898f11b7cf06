import type { DiffLine } from '../git/parse-unified-diff.js';

export interface FileChange {
  /** Path after the change (the old path for a deletion). */
  path: string;
  /** Path before a rename or copy. */
  oldPath?: string;
  status: 'A' | 'M' | 'D' | 'R' | 'C' | 'T';
  added: DiffLine[];
  removed: DiffLine[];
  before?: string;
  after?: string;
}

/** Everything a cheat detector may look at: the diff from where the claimed work started to HEAD. */
export interface ChangeSet {
  base: string;
  head: string;
  files: FileChange[];
  /** What the work was meant to do: the story's title and description, or the task. */
  intent: string;
  /** The story's `kind` in prd.json; `task` in task mode (no structure: the task's words are all there is). */
  kind?: string;
}
