import { join } from 'node:path';
import { runBaseline } from '../gates/run-baseline.js';
import { readPrdNow } from '../prd/read-prd-passes.js';
import { appendJournal } from '../state/journal.js';
import type { RunState, StopReason } from '../state/state-schema.js';
import { writeState } from '../state/state-store.js';
import { checkBudgets } from '../usage/check-budgets.js';
import { detectOscillation, detectRepeatedClaim, parkedBlock, parkStory, trackErrors, trackHazard } from './breakers.js';
import { decideNextStep, decideStall, exitCodeFor } from './decide-next-step.js';
import { hazardFinding } from './detect-hazard.js';
import { journalEntry } from './journal-entry.js';
import type { LoopContext } from './loop-context.js';
import { recheckAccepted } from './recheck.js';
import { runIteration } from './run-iteration.js';

export interface LoopOutcome {
  stopReason: StopReason;
  exitCode: number;
  detail: string;
}

/** What is left: the ids of stories without `passes`, or the task while it is not accepted. */
export async function remainingWork(ctx: LoopContext, state: RunState): Promise<string[]> {
  if (ctx.options.prdFile) {
    const now = await readPrdNow(ctx.options.prdFile);
    if (!now.loaded) throw new Error(`prd.json cannot be read: ${now.error}`);
    // --story: only that story is this run's work.
    return now.loaded.prd.userStories.filter((s) => !s.passes && (!ctx.options.story || s.id === ctx.options.story)).map((s) => s.id);
  }
  return state.taskComplete ? [] : ['task'];
}

/**
 * Runs that ended for good: the work is done, a budget ran out, or a boundary was crossed. Every other stop
 * (the user, a stall, a breaker, a rate limit, an error) is paused: `star-loop resume` continues it with the
 * same id, counters and budgets.
 */
const FINISHING: ReadonlySet<StopReason> = new Set([
  'complete',
  'max-iterations',
  'max-time',
  'max-cost',
  'max-tokens',
  'regressed',
  'refused',
  'safety',
]);

interface Breakers {
  /** Stops the run before the next iteration. */
  breaker?: { reason: StopReason; detail: string };
  /** A soft hazard that lasted a whole stall streak: the stall takes its name. */
  namedStall?: { reason: StopReason; detail: string };
}

/** The breakers that look at one iteration's record: a provider that stayed limited, a repeated claim, a hazard. */
function afterIteration(state: RunState, record: RunState['records'][number], stallAfter: number): Breakers {
  if (record.agent.rateLimited) {
    state.hazardStreak = undefined;
    return {
      breaker: { reason: 'rate-limited', detail: `${record.agent.error ?? 'rate limited'}; \`star-loop resume\` continues the run` },
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

/**
 * The loop: decide (pure) whether to go on, run one iteration, record it, repeat. State is saved after
 * every step, so a fresh runner can continue from disk alone.
 */
export async function runLoop(ctx: LoopContext, state: RunState): Promise<LoopOutcome> {
  const { paths, options, emit } = ctx;
  const segmentStart = Date.now();
  const activeBase = state.activeMs;
  const save = async () => {
    state.activeMs = activeBase + (Date.now() - segmentStart);
    state.updatedAt = new Date().toISOString();
    await writeState(paths.state, state);
  };

  if (options.verify !== 'off' && !state.baseline) {
    state.baseline = await runBaseline(ctx.git, ctx.gates, {
      root: options.root,
      logFile: join(paths.dir, 'baseline.log'),
      timeoutMs: options.gateTimeoutMs,
      env: ctx.env,
      signal: ctx.signal,
      redactor: ctx.redactor,
    });
    emit({ type: 'baseline.finished', gates: state.baseline.gates.map(({ name, status, failures }) => ({ name, status, failures })) });
    await save();
  }
  let stalled: string | undefined;
  let safety: string | undefined;
  let repeatedError: string | undefined;
  let oscillating: string | undefined;
  let breaker: { reason: StopReason; detail: string } | undefined;
  let pauseOnStall = true;
  /** The stop comes from a stall (named or not): --on-stall decides between pause and stop. */
  let stallStop = false;
  for (;;) {
    state.activeMs = activeBase + (Date.now() - segmentStart);
    let step = decideNextStep({
      aborted: ctx.signal.aborted || ctx.stopRequested.aborted,
      remaining: (await remainingWork(ctx, state)).length,
      iterationsThisRun: state.iterationsThisRun,
      verifierRuns: state.verifierRuns,
      reserve: options.verify === 'off' ? 0 : 1,
      maxIterations: options.maxIterations,
      activeMs: state.activeMs,
      maxTimeMs: options.maxTimeMs,
      stalled,
      safety,
      repeatedError,
      oscillating,
      breaker,
      budget: checkBudgets(options, state.records),
      parked: await parkedBlock(ctx, state),
    });
    if (step.kind === 'iterate' && ctx.permit) {
      // A fleet's worker: the fleet's budgets are shared, so the fleet says whether this iteration may start.
      const denied = await ctx.permit(options.story);
      if (denied) step = { kind: 'stop', ...denied };
    }
    if (step.kind === 'stop' && step.reason === 'complete' && options.prdFile && state.iterationsThisRun > 0 && options.verify !== 'off') {
      const regressions = await recheckAccepted(ctx, state);
      if (regressions.length > 0) {
        Object.assign(step, {
          reason: 'regressed',
          detail: `stories accepted earlier no longer hold: ${regressions.map((f) => f.detail).join('; ')}`,
        });
      }
    }
    if (step.kind === 'stop' && state.parked.length > 0 && (step.reason === 'max-iterations' || step.reason === 'max-time')) {
      // A run that ends with stories set aside needs a human first, whatever else ran out.
      Object.assign(step, {
        reason: 'parked',
        detail: `${step.detail}; parked for a human: ${state.parked.map((p) => p.story).join(', ')}`,
      });
    }
    if (step.kind === 'stop') {
      const fromStall = step.reason === 'stalled' || (stallStop && step.reason === breaker?.reason);
      const paused = fromStall ? pauseOnStall : !FINISHING.has(step.reason);
      state.status = paused ? 'paused' : 'finished';
      state.stopReason = step.reason;
      state.stopDetail = step.detail;
      state.exitCode = exitCodeFor(step.reason);
      state.endedAt = new Date().toISOString();
      await save();
      return { stopReason: step.reason, exitCode: state.exitCode, detail: step.detail };
    }

    const record = await runIteration(ctx, state, save);
    state.iterationsThisRun = record.index;
    state.current = undefined;
    state.records.push(record);
    if (record.verdict === 'accepted') {
      state.pendingFindings = [];
      if (options.mode === 'task') state.taskComplete = true;
      const stories = record.claim?.stories.length ? record.claim.stories : [undefined];
      const commit = await ctx.git.head();
      for (const story of stories) state.accepted.push({ story, iteration: record.n, at: new Date().toISOString(), commit });
    } else if (record.findings.length > 0) {
      // A rejection, or (--verify every) problems found without a claim: the next iteration sees them verbatim.
      state.pendingFindings = record.findings;
      state.pendingFromClaim = record.claim !== undefined;
    }
    state.stallStreak = record.stall ? state.stallStreak + 1 : 0;
    repeatedError = trackErrors(state, record, options.sameErrorLimit);
    oscillating = detectOscillation(state.records);
    const tripped = afterIteration(state, record, options.stallAfter);
    breaker = tripped.breaker;
    if (record.story && record.verdict === 'rejected') {
      const failures = (state.storyFailures[record.story] ?? 0) + 1;
      state.storyFailures[record.story] = failures;
      if (failures >= options.parkAfter) {
        await parkStory(ctx, state, record);
        emit({
          type: 'warning',
          message: `parked ${record.story} after ${options.parkAfter} rejected claims: see .star/pending_for_human.md; moving on`,
        });
      }
    } else if (record.story && record.verdict === 'accepted') delete state.storyFailures[record.story];
    await appendJournal(paths.journal, journalEntry(record));
    await save();
    emit({ type: 'iteration.finished', record, stallStreak: state.stallStreak });

    if (record.safety.length > 0) {
      safety = `safety boundary crossed in iteration ${record.n}: ${record.safety.map((v) => v.detail).join('; ')}`;
      continue;
    }
    const stall = decideStall(state.stallStreak, options.stallAfter, options.onStall);
    if (stall.kind === 'continue') {
      emit({ type: 'warning', message: `${stall.detail}; continuing because --on-stall continue` });
      state.stallStreak = 0;
    } else if (stall.kind !== 'none') {
      pauseOnStall = stall.kind === 'pause';
      if (tripped.namedStall) breaker = tripped.namedStall;
      else stalled = stall.detail;
      stallStop = true;
    }
  }
}
