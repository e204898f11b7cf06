import type { RunState } from '../state/state-schema.js';
import { checkBudgets } from '../usage/check-budgets.js';
import { parkedBlock } from './breakers.js';
import { decideNextStep, type NextStep, type NextStepInput } from './decide-next-step.js';
import type { LoopContext } from './loop-context.js';
import type { LoopSignals } from './loop-signals.js';
import { recheckAccepted } from './recheck.js';
import { remainingWork } from './remaining-work.js';

/**
 * Gathers what the decision needs and decides. Two inputs cost something, so they are asked for only when
 * they can change the answer: the fleet's permit (a worker's next iteration would start) and the final
 * re-check of accepted stories (a PRD run would end complete).
 */
export async function nextStep(ctx: LoopContext, state: RunState, signals: LoopSignals): Promise<NextStep> {
  const { options } = ctx;
  const input: NextStepInput = {
    aborted: ctx.signal.aborted || ctx.stopRequested.aborted,
    // A safety stop comes first, and needs no prd.json: the agent that crossed the line may have broken it.
    remaining: signals.safety ? 1 : (await remainingWork(ctx, state)).length,
    iterationsThisRun: state.iterationsThisRun,
    verifierRuns: state.verifierRuns,
    reserve: options.verify === 'off' ? 0 : 1,
    maxIterations: options.maxIterations,
    activeMs: state.activeMs,
    maxTimeMs: options.maxTimeMs,
    stalled: signals.stalled,
    safety: signals.safety,
    repeatedError: signals.repeatedError,
    oscillating: signals.oscillating,
    breaker: signals.breaker,
    budget: checkBudgets(options, state.records),
    parked: await parkedBlock(ctx, state),
    parkedStories: state.parked.map((p) => p.story),
    testsGap: state.testsGap,
  };
  const step = decideNextStep(input);
  if (step.kind === 'iterate' && ctx.permit) {
    // A fleet's worker: the fleet's budgets are shared, so the fleet says whether this iteration may start.
    const denied = await ctx.permit(options.story);
    return denied ? decideNextStep({ ...input, denied }) : step;
  }
  const recheck = step.kind === 'stop' && step.reason === 'complete' && options.prdFile && state.iterationsThisRun > 0;
  if (recheck && options.verify !== 'off') {
    const regressions = await recheckAccepted(ctx, state);
    if (regressions.length > 0) {
      const regressed = `stories accepted earlier no longer hold: ${regressions.map((f) => f.detail).join('; ')}`;
      return decideNextStep({ ...input, regressed });
    }
  }
  return step;
}
