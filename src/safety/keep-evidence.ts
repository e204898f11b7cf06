import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../git/git.js';
import type { Finding } from '../state/finding-schema.js';

/**
 * After a violation: HEAD as the agent left it goes on a ref of star-loop's own, and so do uncommitted
 * changes (as a commit made through a throw-away index; the files stay as they are) — unless they hold a
 * secret, which must not be written into the repository's objects. Returns the refs written.
 */
export async function keepEvidence(git: Git, runId: string, n: number, violations: Finding[]): Promise<string[]> {
  const refs: string[] = [];
  const head = await git.head();
  if (head) {
    refs.push(`refs/star-loop/${runId}/${n}-after`);
    await git.keepRef(`refs/star-loop/${runId}/${n}-after`, head);
  }
  const changes = await git.workingChanges();
  const secretInWorkTree = violations.some(
    (v) => v.rule.startsWith('secret:') && changes.some((c) => c.path === v.file),
  );
  if (head && changes.length > 0 && !secretInWorkTree) {
    const index = join(tmpdir(), `star-loop-index-${process.pid}-${n}`);
    try {
      const commit = await git.snapshotWorkTree(
        `star-loop: iteration ${n}, uncommitted work at the safety stop`,
        head,
        index,
      );
      refs.push(`refs/star-loop/${runId}/${n}-uncommitted`);
      await git.keepRef(`refs/star-loop/${runId}/${n}-uncommitted`, commit);
    } finally {
      await rm(index, { force: true });
    }
  }
  return refs;
}
