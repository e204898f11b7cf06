import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareGates } from '../gates/compare-gates.js';
import type { Gate } from '../gates/gate.js';
import type { GatePlace } from '../gates/gate-bench.js';
import { runGatesOn } from '../gates/run-gates.js';
import type { Git } from '../git/git.js';
import { setStoryPasses } from '../prd/set-story-passes.js';
import type { Finding } from '../state/finding-schema.js';
import type { GateBaseline, GateComparison } from '../state/state-schema.js';

export interface MergeInput {
  /** The repository root, checked out on the integration branch. */
  root: Git;
  /** The story's worktree, on its own branch. */
  tree: Git;
  integration: string;
  storyBranch: string;
  story: string;
  title: string;
  attempt: number;
  /** prd.json relative to the root. */
  prd: string;
  gates: readonly Gate[];
  baseline: readonly GateBaseline[];
  /** The commit the baseline ran on (the trusted dependencies were installed for it). */
  baselineCommit?: string;
  /** Where the gates run on the merge. */
  place: GatePlace;
  /** For temporary files (the throw-away index) and the gates' log. */
  workDir: string;
  logFile: string;
}

export type MergeResult =
  | { kind: 'merged'; commit: string; gates: GateComparison[] }
  | { kind: 'conflict'; findings: Finding[] }
  | { kind: 'failed-after-merge'; commit: string; findings: Finding[]; gates: GateComparison[] }
  /** Nothing was merged and nothing is wrong with the story: the merge is tried again later. */
  | { kind: 'blocked'; detail: string };

/**
 * The merge serializer's one merge: the story's branch into the integration branch, never forced and never
 * rewriting it. The merge is computed without a work tree (`git merge-tree`); a conflict goes back to the
 * queue. Otherwise the merge commit is checked out in the story's worktree (its branch moves forward to it),
 * the gates run there against the fleet's baseline, and only when they hold does the integration branch
 * fast-forward to it. prd.json's `passes` are star-loop's own: a conflict there alone is resolved by taking
 * the integration branch's prd.json with this story's `passes` set.
 */
export async function mergeStory(input: MergeInput): Promise<MergeResult> {
  const { root, tree } = input;
  const onBranch = await root.currentBranch();
  if (onBranch !== input.integration) {
    return {
      kind: 'blocked',
      detail:
        `the repository root is on ${onBranch ?? 'a detached HEAD'}, ` +
        `not on the integration branch ${input.integration}: ` +
        `switch back (\`git switch ${input.integration}\`), then \`star-loop resume\``,
    };
  }
  const [ours, theirs] = await Promise.all([root.head(), tree.head()]);
  if (!ours || !theirs) return { kind: 'blocked', detail: 'the integration branch or the story branch has no commit' };
  // Merged already (the fleet stopped between the merge and recording it).
  if (await root.isAncestor(theirs, ours)) return { kind: 'merged', commit: ours, gates: [] };

  const merged = await root.mergeTree(ours, theirs);
  let mergedTree = merged.tree;
  if (merged.conflicts.length > 0) {
    const resolved =
      merged.conflicts.length === 1 && merged.conflicts[0] === input.prd
        ? await resolvePrd(input, ours, merged.tree)
        : undefined;
    if (!resolved) {
      return {
        kind: 'conflict',
        findings: [
          {
            rule: 'merge-conflict',
            detail:
              `merging ${input.storyBranch} into ${input.integration} conflicts in ` +
              `${merged.conflicts.join(', ')}: other stories changed the same lines since this one ` +
              `started; redo it on top of the current ${input.integration}`,
            output: merged.messages.slice(0, 2000) || undefined,
          },
        ],
      };
    }
    mergedTree = resolved;
  }
  const commit = await root.commitTree(
    mergedTree,
    [ours, theirs],
    `star-loop fleet: merge ${input.story} (${input.title})\n\nBranch ${input.storyBranch}, attempt ` +
      `${input.attempt}; the gates passed on this merge before ${input.integration} moved to it.`,
  );
  // The story's branch moves on to the merge; the gates run on a clean copy of it.
  await tree.fastForward(commit);
  const { results, findings: untrusted } = await runGatesOn(input.gates, {
    ...input.place,
    commit,
    installedAt: input.baselineCommit,
    logFile: input.logFile,
  });
  if (results.length < input.gates.length)
    return { kind: 'blocked', detail: 'stopped while the gates ran on the merge' };
  const compared = compareGates(input.baseline, results);
  compared.findings.push(...untrusted);
  if (compared.findings.length > 0) {
    return {
      kind: 'failed-after-merge',
      commit,
      gates: compared.rows,
      findings: compared.findings.map((f) => ({
        ...f,
        detail: `after merging into ${input.integration} (with the stories merged since this one started): ${f.detail}`,
      })),
    };
  }
  try {
    await root.fastForward(commit);
  } catch (error) {
    return {
      kind: 'blocked',
      detail:
        `could not move ${input.integration} forward in the repository root: ` +
        `${(error as Error).message.trim()}; commit or move your changes there, then \`star-loop resume\``,
    };
  }
  return { kind: 'merged', commit, gates: compared.rows };
}

/** The integration branch's prd.json with this story passing, written into the merged tree. */
async function resolvePrd(input: MergeInput, ours: string, mergedTree: string): Promise<string | undefined> {
  const text = await input.root.showFile(ours, input.prd);
  if (text === undefined) return undefined;
  const content = join(input.workDir, `prd-${process.pid}.json`);
  const index = join(input.workDir, `index-${process.pid}`);
  try {
    await writeFile(content, setStoryPasses(text, input.story, true));
    return await input.root.replaceFileInTree(mergedTree, input.prd, content, index);
  } finally {
    await Promise.all([rm(content, { force: true }), rm(index, { force: true })]);
  }
}
