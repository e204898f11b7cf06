import type { IterationRecord, RunState } from '../state/state-schema.js';
import { beginIteration, readOptional } from './begin-iteration.js';
import type { LoopContext } from './loop-context.js';
import { recordIteration, violationRecord } from './record-iteration.js';
import { runImplementer } from './run-implementer.js';
import { settleWork } from './settle-work.js';
import { takeClaim } from './take-claim.js';
import { verifyClaim } from './verify-claim.js';

/**
 * One iteration, phase by phase: begin (story, prompt, the starting commit kept), a fresh agent, settle the
 * tree (safety first; nothing uncommitted left or lost), take the claim, verify it by running the gates
 * and the verifier, record what moved. `save` writes the run state (for status and crash recovery).
 */
export async function runIteration(
  ctx: LoopContext,
  state: RunState,
  save: () => Promise<void>,
): Promise<IterationRecord> {
  const { options, git } = ctx;
  const start = await beginIteration(ctx, state, save);
  const implementer = await runImplementer(ctx, state, start, save);
  const settled = await settleWork(ctx, state.runId, start, implementer.guardBefore);
  if (settled.kind === 'violated')
    return violationRecord(start, implementer, await git.head(), settled.violations, settled.keptRefs);

  const notes = [...settled.notes];
  const { collected, summary } = await takeClaim(ctx, start, implementer.run.output, settled.flipped, notes);
  const planAfter = options.mode === 'task' ? await readOptional(ctx.paths.plan) : undefined;
  // Held against the claim before anything runs: other stories claimed, prd.json left unreadable.
  const findings = [...collected.outOfScope, ...settled.findings];
  const judged = await verifyClaim(
    ctx,
    state,
    start,
    { claim: collected.claim, summary, planAfter, notes, findings },
    save,
  );
  return recordIteration(state, start, implementer, {
    settled,
    claim: collected.claim,
    summary,
    notes,
    judged,
    planAfter,
    planText: options.prdFile ? await readOptional(options.prdFile) : planAfter,
    endHead: await git.head(),
    taskMode: options.mode === 'task',
  });
}
