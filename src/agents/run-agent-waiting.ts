import pRetry from 'p-retry';
import type { ProcessResult } from '../proc/run-process.js';
import { mergeUsage, resolveUsage, type Usage } from '../usage/resolve-usage.js';
import { eitherSignal, sleep } from '../util/abortable.js';
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

export interface AgentWaitInput {
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
  onSpawn?: (pgid: number, tag: string) => Promise<void>;
  /** Saves the run state (for `star-loop status` while waiting). */
  save: () => Promise<void>;
  /** The sandbox around each attempt: the invocation as it runs inside it. */
  wrap?: (invocation: AgentInvocation) => AgentInvocation;
}

/** One call's attempts: what ran, what it cost, the reset times the provider gave, the time spent waiting. */
class Attempts {
  private readonly adapters: Map<string, AgentAdapter>;
  private readonly started = Date.now();
  private ranMs = 0;
  /** Reset times the provider gave in this call, so a known reset is waited for exactly. */
  private readonly knownReset = new Map<string, number>();
  private readonly usages: Usage[] = [];
  last?: AgentRun;

  constructor(
    private readonly ctx: AgentRunContext,
    private readonly input: AgentWaitInput,
    /** The longest all waits of this call may take. */
    readonly budgetMs: number,
    private readonly stop: AbortSignal,
  ) {
    this.adapters = new Map([input.primary, ...(input.fallback ? [input.fallback] : [])].map((a) => [a.name, a]));
  }

  private next(now: number): string {
    return pickAgent(now, this.ctx.state.limitedUntil, this.input.primary.name, this.input.fallback?.name);
  }

  /** One run of whichever agent is free (or free first); a rate limit in its output throws RateLimited. */
  async run(attemptNumber: number): Promise<AgentRun> {
    const { ctx, input } = this;
    const name = this.next(Date.now());
    const adapter = this.adapters.get(name) ?? input.primary;
    const invocation = input.invocation(adapter);
    const t0 = Date.now();
    const result = await runAgent(ctx, adapter, input.wrap ? input.wrap(invocation) : invocation, {
      logFile: input.logFile(attemptNumber),
      timeoutMs: input.timeoutMs,
      onSpawn: input.onSpawn,
      iteration: input.iteration,
      role: input.role,
    });
    this.ranMs += Date.now() - t0;
    const read = adapter.interpretExit ? adapter.interpretExit(result.proc.exitCode, result.output) : result.output;
    // Agents that do not say which model answered are priced by the model they were asked for.
    const output = read.model ? read : { ...read, model: invocation.model };
    this.usages.push(resolveUsage(output, ctx.prices));
    const last: AgentRun = { adapter, invocation, proc: result.proc, output, attempts: attemptNumber, waitedMs: 0 };
    this.last = last;
    const limit = output.rateLimit;
    const limitedUntil = ctx.state.limitedUntil;
    if (limit && !result.proc.timedOut && !result.proc.idle && !ctx.signal.aborted) {
      if (limit.resetAt !== undefined) this.knownReset.set(name, limit.resetAt);
      else this.knownReset.delete(name);
      limitedUntil[name] =
        limit.resetAt ?? Date.now() + longestBackoff(attemptNumber - 1, ctx.backoff.initialMs, ctx.backoff.maxMs);
      throw new RateLimited(last);
    }
    delete limitedUntil[name];
    return last;
  }

  /** After a limited attempt: say so, record the wait for status, and sleep until a known reset. */
  async afterLimited(error: RateLimited, attemptNumber: number, retriesConsumed: number): Promise<void> {
    const { ctx, input } = this;
    const run = error.run;
    const now = Date.now();
    const next = this.next(now);
    const nextFree = (ctx.state.limitedUntil[next] ?? 0) <= now;
    const reset = this.knownReset.get(next);
    const left = this.budgetMs - (now - this.started);
    const backoff = () => longestBackoff(retriesConsumed, ctx.backoff.initialMs, ctx.backoff.maxMs);
    const wait = nextFree ? 0 : reset !== undefined ? reset - now : backoff();
    const shown = Math.max(0, Math.min(wait, left));
    ctx.emit({
      type: 'agent.rate-limited',
      iteration: input.iteration,
      agent: run.adapter.name,
      attempt: attemptNumber,
      detail: run.output.rateLimit?.detail ?? 'rate limited',
      next,
      waitMs: shown,
      resetAt: reset !== undefined ? new Date(reset).toISOString() : undefined,
    });
    // A reset further away than the wait allowed: give up now rather than sleep for nothing.
    if (reset !== undefined && !nextFree && wait > left) throw error;
    if (ctx.state.current) ctx.state.current.waitingUntil = new Date(now + shown).toISOString();
    await input.save();
    if (!nextFree && reset !== undefined) await sleep(Math.max(0, wait), this.stop);
  }

  /** A free fallback, or a reset already waited for: the next attempt starts at once (no backoff). */
  consumesRetry(): boolean {
    const now = Date.now();
    const next = this.next(now);
    return (this.ctx.state.limitedUntil[next] ?? 0) > now && !this.knownReset.has(next);
  }

  finish(run: AgentRun): AgentRun {
    return { ...run, usage: mergeUsage(this.usages), waitedMs: Math.max(0, Date.now() - this.started - this.ranMs) };
  }

  giveUp(run: AgentRun, reason: 'max-wait' | 'stopped'): AgentRun {
    return this.finish({
      ...run,
      gaveUp: { signal: run.output.rateLimit ?? { kind: 'rate-limit', detail: 'rate limited' }, reason },
    });
  }
}

/**
 * Runs an agent and waits out rate limits and overloads (read from its structured output, never from its
 * text) with p-retry: until the provider's reset time when it gives one, else exponential backoff with
 * jitter; with a fallback agent, that one runs at once instead, and the primary again once its limit has
 * passed. The whole wait is bounded by --max-wait (and what is left of --max-time); a stop ends it at once.
 * Work a limited attempt left in the tree stays for the next attempt: nothing is undone.
 */
export async function runAgentWaiting(ctx: AgentRunContext, input: AgentWaitInput): Promise<AgentRun> {
  const either = eitherSignal(ctx.signal, ctx.stopRequested);
  const stop = either.signal;
  const attempts = new Attempts(ctx, input, Math.min(ctx.maxWaitMs, Math.max(0, input.timeLeftMs)), stop);
  // A stop already asked for: the iteration still runs its agent once, but nothing is waited for.
  if (stop.aborted) {
    either.dispose();
    try {
      return attempts.finish(await attempts.run(1));
    } catch (error) {
      if (error instanceof RateLimited) return attempts.giveUp(error.run, 'stopped');
      throw error;
    }
  }
  try {
    const run = await pRetry((n) => attempts.run(n), {
      retries: Number.POSITIVE_INFINITY,
      factor: 2,
      minTimeout: ctx.backoff.initialMs,
      maxTimeout: ctx.backoff.maxMs,
      randomize: true,
      maxRetryTime: attempts.budgetMs,
      signal: stop,
      shouldRetry: ({ error }) => error instanceof RateLimited,
      onFailedAttempt: async ({ error, attemptNumber, retriesConsumed }) => {
        if (error instanceof RateLimited) await attempts.afterLimited(error, attemptNumber, retriesConsumed);
      },
      shouldConsumeRetry: () => attempts.consumesRetry(),
    });
    return attempts.finish(run);
  } catch (error) {
    if (error instanceof RateLimited) return attempts.giveUp(error.run, stop.aborted ? 'stopped' : 'max-wait');
    // A stop that came while waiting, or just after an attempt that was not limited.
    const { last } = attempts;
    if (stop.aborted && last) return last.output.rateLimit ? attempts.giveUp(last, 'stopped') : attempts.finish(last);
    throw error;
  } finally {
    either.dispose();
    if (ctx.state.current) ctx.state.current.waitingUntil = undefined;
  }
}
