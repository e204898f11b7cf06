import pRetry from 'p-retry';
import type { ProcessResult } from '../proc/run-process.js';
import { mergeUsage, resolveUsage, type Usage } from '../usage/resolve-usage.js';
import type { AgentAdapter, AgentInvocation, AgentOutput, RateLimitSignal } from './agent-adapter.js';
import type { AgentRunContext } from './agent-run-context.js';
import { longestBackoff, pickAgent } from './pick-agent.js';
import { runAgent } from './run-agent.js';

export interface AgentRun {
  adapter: AgentAdapter;
  invocation: AgentInvocation;
  proc: ProcessResult;
  output: AgentOutput;
  /** Runs of an agent in this call: 1 unless a rate limit was waited out. */
  attempts: number;
  /** Time spent waiting between attempts. */
  waitedMs: number;
  /** Every attempt's tokens and cost together: a limited attempt can cost too. */
  usage?: Usage;
  /** Set when the provider was still limiting after --max-wait (or the run was stopped while waiting). */
  gaveUp?: { signal: RateLimitSignal; reason: 'max-wait' | 'stopped' };
}

class RateLimited extends Error {
  constructor(readonly run: AgentRun) {
    super(run.output.rateLimit?.detail ?? 'rate limited');
  }
}

/**
 * Aborted when either is (AbortSignal.any needs Node 20.3; star-loop supports every Node 20). `dispose`
 * removes its listeners from the run-long signals, so a long run does not pile them up.
 */
function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const both = new AbortController();
  const listeners = [a, b].map((signal) => {
    const onAbort = () => both.abort(signal.reason);
    if (signal.aborted) both.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
  return {
    signal: both.signal,
    dispose: () => {
      for (const remove of listeners) remove();
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs an agent and waits out rate limits and overloads (read from its structured output, never from its
 * text) with p-retry: until the provider's reset time when it gives one, else exponential backoff with
 * jitter; with a fallback agent, that one runs at once instead, and the primary again once its limit has
 * passed. The whole wait is bounded by --max-wait (and what is left of --max-time); a stop ends it at once.
 * Work a limited attempt left in the tree stays for the next attempt: nothing is undone.
 */
export async function runAgentWaiting(
  ctx: AgentRunContext,
  input: {
    iteration: number;
    role: 'implementer' | 'verifier';
    primary: AgentAdapter;
    fallback?: AgentAdapter;
    invocation: (adapter: AgentAdapter) => AgentInvocation;
    /** The log of attempt k (1-based). */
    logFile: (attempt: number) => string;
    timeoutMs: number;
    /** What is left of --max-time: no wait goes past it. */
    timeLeftMs: number;
    onSpawn?: (pgid: number) => Promise<void>;
    /** Saves the run state (for `star-loop status` while waiting). */
    save: () => Promise<void>;
  },
): Promise<AgentRun> {
  const { state, emit } = ctx;
  const adapters = new Map([input.primary, ...(input.fallback ? [input.fallback] : [])].map((a) => [a.name, a]));
  const budgetMs = Math.min(ctx.maxWaitMs, Math.max(0, input.timeLeftMs));
  const either = eitherSignal(ctx.signal, ctx.stopRequested);
  const stop = either.signal;
  const started = Date.now();
  let ranMs = 0;
  let last: AgentRun | undefined;
  /** Reset times the provider gave in this call, so a known reset is waited for exactly. */
  const knownReset = new Map<string, number>();
  const usages: Usage[] = [];
  const finish = (run: AgentRun): AgentRun => ({ ...run, usage: mergeUsage(usages), waitedMs: Math.max(0, Date.now() - started - ranMs) });

  const attempt = async (attemptNumber: number): Promise<AgentRun> => {
    const name = pickAgent(Date.now(), state.limitedUntil, input.primary.name, input.fallback?.name);
    const adapter = adapters.get(name) ?? input.primary;
    const invocation = input.invocation(adapter);
    const t0 = Date.now();
    const result = await runAgent(ctx, adapter, invocation, {
      logFile: input.logFile(attemptNumber),
      timeoutMs: input.timeoutMs,
      onSpawn: input.onSpawn,
      iteration: input.iteration,
      role: input.role,
    });
    ranMs += Date.now() - t0;
    const read = adapter.interpretExit ? adapter.interpretExit(result.proc.exitCode, result.output) : result.output;
    // Agents that do not say which model answered are priced by the model they were asked for.
    const output = read.model ? read : { ...read, model: invocation.model };
    usages.push(resolveUsage(output, ctx.prices));
    last = { adapter, invocation, proc: result.proc, output, attempts: attemptNumber, waitedMs: 0 };
    const limit = output.rateLimit;
    if (limit && !result.proc.timedOut && !result.proc.idle && !ctx.signal.aborted) {
      if (limit.resetAt !== undefined) knownReset.set(name, limit.resetAt);
      else knownReset.delete(name);
      state.limitedUntil[name] = limit.resetAt ?? Date.now() + longestBackoff(attemptNumber - 1, ctx.backoff.initialMs, ctx.backoff.maxMs);
      throw new RateLimited(last);
    }
    delete state.limitedUntil[name];
    return last;
  };

  const giveUp = (run: AgentRun, reason: 'max-wait' | 'stopped'): AgentRun =>
    finish({ ...run, gaveUp: { signal: run.output.rateLimit ?? { kind: 'rate-limit', detail: 'rate limited' }, reason } });
  // A stop already asked for: the iteration still runs its agent once, but nothing is waited for.
  if (stop.aborted) {
    either.dispose();
    try {
      return finish(await attempt(1));
    } catch (error) {
      if (error instanceof RateLimited) return giveUp(error.run, 'stopped');
      throw error;
    }
  }
  try {
    return finish(
      await pRetry(attempt, {
        retries: Number.POSITIVE_INFINITY,
        factor: 2,
        minTimeout: ctx.backoff.initialMs,
        maxTimeout: ctx.backoff.maxMs,
        randomize: true,
        maxRetryTime: budgetMs,
        signal: stop,
        shouldRetry: ({ error }) => error instanceof RateLimited,
        onFailedAttempt: async ({ error, attemptNumber, retriesConsumed }) => {
          if (!(error instanceof RateLimited)) return;
          const run = error.run;
          const now = Date.now();
          const next = pickAgent(now, state.limitedUntil, input.primary.name, input.fallback?.name);
          const nextFree = (state.limitedUntil[next] ?? 0) <= now;
          const reset = knownReset.get(next);
          const left = budgetMs - (now - started);
          const wait = nextFree
            ? 0
            : reset !== undefined
              ? reset - now
              : longestBackoff(retriesConsumed, ctx.backoff.initialMs, ctx.backoff.maxMs);
          emit({
            type: 'agent.rate-limited',
            iteration: input.iteration,
            agent: run.adapter.name,
            attempt: attemptNumber,
            detail: run.output.rateLimit?.detail ?? 'rate limited',
            next,
            waitMs: Math.max(0, Math.min(wait, left)),
            resetAt: reset !== undefined ? new Date(reset).toISOString() : undefined,
          });
          // A reset further away than the wait allowed: give up now rather than sleep for nothing.
          if (reset !== undefined && !nextFree && wait > left) throw error;
          if (state.current) state.current.waitingUntil = new Date(now + Math.max(0, Math.min(wait, left))).toISOString();
          await input.save();
          if (!nextFree && reset !== undefined) await sleep(Math.max(0, wait), stop);
        },
        // A free fallback, or a reset already waited for: the next attempt starts at once.
        shouldConsumeRetry: () => {
          const now = Date.now();
          const next = pickAgent(now, state.limitedUntil, input.primary.name, input.fallback?.name);
          return (state.limitedUntil[next] ?? 0) > now && !knownReset.has(next);
        },
      }),
    );
  } catch (error) {
    if (error instanceof RateLimited) return giveUp(error.run, stop.aborted ? 'stopped' : 'max-wait');
    // A stop that came while waiting, or just after an attempt that was not limited.
    if (stop.aborted && last) return last.output.rateLimit ? giveUp(last, 'stopped') : finish(last);
    throw error;
  } finally {
    either.dispose();
    if (state.current) state.current.waitingUntil = undefined;
  }
}
