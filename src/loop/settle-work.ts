import { checkSafety, type GuardSnapshot } from '../safety/check-safety.js';
import { keepEvidence } from '../safety/keep-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import { readClaimFile } from '../state/read-claim-file.js';
import type { IterationStart } from './begin-iteration.js';
import type { LoopContext } from './loop-context.js';
import { settlePrd } from './settle-prd.js';

/** The tree after the agent, once star-loop has settled it (or the boundaries it crossed). */
export type SettledWork =
  | { kind: 'violated'; violations: Finding[]; keptRefs: string[] }
  | {
      kind: 'settled';
      committedForAgent?: string;
      /** Stories the agent flipped to `passes: true` itself: claims, nothing more. */
      flipped: string[];
      notes: string[];
      /** Held against this iteration's claim: the agent left prd.json unreadable. */
      findings: Finding[];
      endHead?: string;
      endTree?: string;
      filesChanged: number;
    };

/** star-loop's commit of the agent's work says what the agent's report says it did. */
async function commitMessage(claimFile: string, n: number, redact: (t: string) => string): Promise<string> {
  const claim = await readClaimFile(claimFile);
  const first = claim.kind === 'valid' ? claim.claim.summary?.split('\n')[0]?.trim() : undefined;
  const summary = first === undefined ? undefined : redact(first);
  return summary
    ? `star-loop: iteration ${n}: ${summary.slice(0, 120)}`
    : `star-loop: iteration ${n} (the agent's work)`;
}

/**
 * After the agent: safety first, before star-loop touches anything (a violation ends the run; nothing is
 * undone, the evidence is kept on star-loop's refs). Then nothing the agent did is lost — uncommitted work
 * becomes a commit of its own — and any `passes` the agent wrote is set back (star-loop owns them).
 */
export async function settleWork(
  ctx: LoopContext,
  runId: string,
  start: IterationStart,
  guardBefore: GuardSnapshot,
): Promise<SettledWork> {
  const { git, options, emit } = ctx;
  const { n, startHead } = start;
  const working = await git.workingChanges();
  const notices: string[] = [];
  const violations = await checkSafety(ctx.guard, guardBefore, working, notices);
  for (const message of notices) emit({ type: 'warning', message });
  if (violations.length > 0) {
    const keptRefs = await keepEvidence(git, runId, n, violations);
    for (const v of violations) emit({ type: 'warning', message: `SAFETY: ${v.detail}` });
    return { kind: 'violated', violations, keptRefs };
  }
  let committedForAgent: string | undefined;
  if (working.length > 0) {
    const message = await commitMessage(ctx.paths.claim, n, ctx.redactor.redact);
    committedForAgent = await git.commitAll(message, working);
    if (committedForAgent) emit({ type: 'work.committed', iteration: n, commit: committedForAgent, message });
  }
  const notes: string[] = [];
  const findings: Finding[] = [];
  let flipped: string[] = [];
  if (options.prdFile && start.prdBefore !== undefined) {
    const before = { passes: start.passesBefore, text: start.prdBefore };
    const settled = await settlePrd(git, options.prdFile, before, n);
    flipped = settled.flipped;
    if (settled.broken) {
      const detail =
        `the agent left prd.json unreadable (${settled.broken}); star-loop put it back as the iteration found ` +
        'it — prd.json is the spec: change a story only as valid JSON, and never its `passes`';
      findings.push({ rule: 'prd-broken', file: ctx.prdRelative, detail });
      notes.push(detail);
      emit({ type: 'warning', message: detail });
    }
    if (settled.restored.length > 0) emit({ type: 'passes.restored', iteration: n, stories: settled.restored });
  }
  const endHead = await git.head();
  const endTree = endHead ? await git.tree(endHead) : undefined;
  const filesChanged =
    startHead && endHead && startHead !== endHead ? (await git.filesChangedBetween(startHead, endHead)).length : 0;
  return { kind: 'settled', committedForAgent, flipped, notes, findings, endHead, endTree, filesChanged };
}
