import { join } from 'node:path';
import { testsGap } from '../gates/gate-health.js';
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
  const stop = async (reason: StopReason, detail: string, fromStall = false, pause = false): Promise<LoopOutcome> => {
    state.status = decideStopStatus(reason, { fromStall, pause });
    state.stopReason = reason;
    state.stopDetail = detail;
    state.exitCode = exitCodeFor(reason);
    state.endedAt = new Date().toISOString();
    await save();
    return { stopReason: reason, exitCode: state.exitCode, detail };
  };
  const noTests = (gap: string) =>
    `${gap}; --require-tests-gate refuses to start — add a test command to \`gates\` in star.config.json`;
  // With no gate that runs tests at all, --require-tests-gate refuses before spending a baseline on it.
  const before = options.verify === 'off' ? undefined : testsGap(ctx.gates);
  if (before && options.requireTestsGate) return stop('refused', noTests(before));
  if (options.verify !== 'off' && !state.baseline) {
    const head = (await ctx.git.head()) ?? 'HEAD';
    state.baseline = await runBaseline(ctx.gates, ctx.verify.gatePlace, head, join(paths.dir, 'baseline.log'));
    emit({ type: 'baseline.finished', gates: state.baseline.gates });
    await save();
  }
  const gap = options.verify === 'off' ? undefined : testsGap(ctx.gates, state.baseline?.gates);
  if (gap && gap !== state.testsGap) {
    emit({ type: 'warning', message: `${gap}; claims will be checked by gates that do not test anything` });
    state.testsGap = gap;
    await save();
  }
  if (gap && options.requireTestsGate) return stop('refused', noTests(gap));
  let signals = NO_SIGNALS;
  for (;;) {
    state.activeMs = activeBase + (Date.now() - segmentStart);
    const step = await nextStep(ctx, state, signals);
    if (step.kind === 'stop') {
      const fromStall = step.reason === 'stalled' || (signals.stallStop && step.reason === signals.breaker?.reason);
      return stop(step.reason, step.detail, fromStall, signals.pauseOnStall);
    }
    const record = await runIteration(ctx, state, save);
    signals = await afterIteration(ctx, state, record, signals, save);
  }
}
