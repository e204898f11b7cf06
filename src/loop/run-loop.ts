import { join } from 'node:path';
import { runBaseline } from '../gates/run-baseline.js';
import type { RunState } from '../state/state-schema.js';
import { writeState } from '../state/state-store.js';
import { exitCodeFor, type StopReason } from '../state/stop-reasons.js';
import { afterIteration } from './after-iteration.js';
import { decideStopStatus } from './decide-next-step.js';
import type { LoopContext } from './loop-context.js';
import { NO_SIGNALS } from './loop-signals.js';
import { nextStep } from './next-step.js';
import { runIteration } from './run-iteration.js';

export interface LoopOutcome {
  stopReason: StopReason;
  exitCode: number;
  detail: string;
}

/**
 * The loop: decide (pure, src/loop/decide-next-step.ts) whether to go on, run one iteration, record it,
 * repeat. State is saved after every step, so a fresh runner can continue from disk alone.
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
    const head = (await ctx.git.head()) ?? 'HEAD';
    state.baseline = await runBaseline(ctx.gates, ctx.verify.gatePlace, head, join(paths.dir, 'baseline.log'));
    emit({ type: 'baseline.finished', gates: state.baseline.gates });
    await save();
  }
  let signals = NO_SIGNALS;
  for (;;) {
    state.activeMs = activeBase + (Date.now() - segmentStart);
    const step = await nextStep(ctx, state, signals);
    if (step.kind === 'stop') {
      const fromStall = step.reason === 'stalled' || (signals.stallStop && step.reason === signals.breaker?.reason);
      state.status = decideStopStatus(step.reason, { fromStall, pause: signals.pauseOnStall });
      state.stopReason = step.reason;
      state.stopDetail = step.detail;
      state.exitCode = exitCodeFor(step.reason);
      state.endedAt = new Date().toISOString();
      await save();
      return { stopReason: step.reason, exitCode: state.exitCode, detail: step.detail };
    }
    const record = await runIteration(ctx, state, save);
    signals = await afterIteration(ctx, state, record, signals, save);
  }
}
