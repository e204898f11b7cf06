import { appendJournal } from '../state/journal.js';
import type { IterationRecord, RunState } from '../state/state-schema.js';
import type { StopReason } from '../state/stop-reasons.js';
import { detectOscillation, detectRepeatedClaim, parkStory, trackErrors, trackHazard } from './breakers.js';
import { decideStall } from './decide-next-step.js';
import { hazardFinding } from './detect-hazard.js';
import { journalEntry } from './journal-entry.js';
import type { LoopContext } from './loop-context.js';
import type { LoopSignals } from './loop-signals.js';

interface Breakers {
  /** Stops the run before the next iteration. */
  breaker?: { reason: StopReason; detail: string };
  /** A soft hazard that lasted a whole stall streak: the stall takes its name. */
  namedStall?: { reason: StopReason; detail: string };
}

/** The breakers that look at one iteration's record: a provider that stayed limited, a repeated claim, a hazard. */
function breakersAfter(state: RunState, record: IterationRecord, stallAfter: number): Breakers {
  if (record.agent.rateLimited) {
    state.hazardStreak = undefined;
    return {
      breaker: {
        reason: 'rate-limited',
        detail: `${record.agent.error ?? 'rate limited'}; \`star-loop resume\` continues the run`,
      },
    };
  }
  const repeated = detectRepeatedClaim(state.records);
  const hit = record.agent.hazard;
  const hazard = trackHazard(state, record, stallAfter);
  if (hit) {
    // The next fresh agent hears what went wrong, so it does not do the same.
    state.pendingFindings = [hazardFinding(hit)];
    state.pendingFromClaim = false;
  }
  if (hazard?.hard && hit) return { breaker: { reason: hit.name, detail: hazard.detail } };
  return {
    breaker: repeated ? { reason: 'repeated-claim', detail: repeated } : undefined,
    namedStall: hazard && hit ? { reason: hit.name, detail: hazard.detail } : undefined,
  };
}

/** The record into the state: what was accepted, the findings the next prompt gets, the stall streak. */
async function recordInState(ctx: LoopContext, state: RunState, record: IterationRecord): Promise<void> {
  state.iterationsThisRun = record.index;
  state.current = undefined;
  state.records.push(record);
  if (record.verdict === 'accepted') {
    state.pendingFindings = [];
    if (ctx.options.mode === 'task') state.taskComplete = true;
    const stories = record.claim?.stories.length ? record.claim.stories : [undefined];
    const commit = await ctx.git.head();
    for (const story of stories)
      state.accepted.push({ story, iteration: record.n, at: new Date().toISOString(), commit });
  } else if (record.findings.length > 0) {
    // A rejection, or (--verify every) problems found without a claim: the next iteration sees them verbatim.
    state.pendingFindings = record.findings;
    state.pendingFromClaim = record.claim !== undefined;
  }
  state.stallStreak = record.stall ? state.stallStreak + 1 : 0;
}

/**
 * The iteration's end goes on star-loop's own ref too, and every ref of the run is copied into the evidence
 * store outside the repository: whatever a later agent does to the repository's refs, this stays.
 */
async function keepOutside(ctx: LoopContext, runId: string, record: IterationRecord): Promise<void> {
  const ref = `refs/star-loop/${runId}/${record.n}-end`;
  if (record.endHead) await ctx.git.keepRef(ref, record.endHead);
  // A safety stop wrote refs of its own (the agent's HEAD, its uncommitted work): copy everything then.
  const onlyEnd = record.endHead && record.safety.length === 0 ? [{ ref, commit: record.endHead }] : [];
  const problem = await ctx.evidence.keep(runId, onlyEnd);
  if (problem) ctx.emit({ type: 'warning', message: problem });
}

/** A story whose claims keep being rejected is parked for a human after --park-after; the loop moves on. */
async function parkIfStuck(ctx: LoopContext, state: RunState, record: IterationRecord): Promise<void> {
  if (!record.story) return;
  if (record.verdict === 'accepted') {
    delete state.storyFailures[record.story];
    return;
  }
  if (record.verdict !== 'rejected') return;
  const failures = (state.storyFailures[record.story] ?? 0) + 1;
  state.storyFailures[record.story] = failures;
  if (failures < ctx.options.parkAfter) return;
  await parkStory(ctx, state, record);
  ctx.emit({
    type: 'warning',
    message:
      `parked ${record.story} after ${ctx.options.parkAfter} rejected claims: see ` +
      `.star/pending_for_human.md; moving on`,
  });
}

/**
 * After an iteration: its record goes into the state and the journal (saved, then told), and what it means
 * for the next decision — errors, oscillation, breakers, a safety stop, a stall — becomes the new signals.
 */
export async function afterIteration(
  ctx: LoopContext,
  state: RunState,
  record: IterationRecord,
  signals: LoopSignals,
  save: () => Promise<void>,
): Promise<LoopSignals> {
  const { options, emit } = ctx;
  await recordInState(ctx, state, record);
  await keepOutside(ctx, state.runId, record);
  const repeatedError = trackErrors(state, record, options.sameErrorLimit);
  const oscillating = detectOscillation(state.records);
  const tripped = breakersAfter(state, record, options.stallAfter);
  await parkIfStuck(ctx, state, record);
  await appendJournal(ctx.paths.journal, ctx.redactor.redact(journalEntry(record)));
  await save();
  emit({ type: 'iteration.finished', record, stallStreak: state.stallStreak });

  const next: LoopSignals = { ...signals, repeatedError, oscillating, breaker: tripped.breaker };
  if (record.safety.length > 0) {
    return {
      ...next,
      safety: `safety boundary crossed in iteration ${record.n}: ${record.safety.map((v) => v.detail).join('; ')}`,
    };
  }
  const stall = decideStall(state.stallStreak, options.stallAfter, options.onStall);
  if (stall.kind === 'none') return next;
  if (stall.kind === 'continue') {
    emit({ type: 'warning', message: `${stall.detail}; continuing because --on-stall continue` });
    state.stallStreak = 0;
    return next;
  }
  const named = tripped.namedStall;
  return {
    ...next,
    pauseOnStall: stall.kind === 'pause',
    stallStop: true,
    ...(named ? { breaker: named } : { stalled: stall.detail }),
  };
}
