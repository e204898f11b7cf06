import { describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/agents/agent-adapter.js';
import type { IterationRecord } from '../../src/state/state-schema.js';
import { checkBudgets, remainingBudget, uncoveredCostBudget } from '../../src/usage/check-budgets.js';
import { priceFor } from '../../src/usage/price-table.js';
import { mergeUsage, resolveUsage } from '../../src/usage/resolve-usage.js';
import { sumUsage, usageByStory } from '../../src/usage/sum-usage.js';

const out = (o: Partial<AgentOutput>): AgentOutput => ({ finalMessage: '', isError: false, ...o });

function record(
  story: string,
  usage?: IterationRecord['agent']['usage'],
  verifier?: IterationRecord['agent']['usage'],
): IterationRecord {
  return {
    story,
    agent: { timedOut: false, isError: false, usage },
    verification: verifier
      ? {
          base: '',
          head: '',
          gates: [],
          findings: [],
          verifier: { agent: 'x', verdict: 'accept', findings: [], durationMs: 1, usage: verifier },
        }
      : undefined,
  } as unknown as IterationRecord;
}
const reported = (costUsd: number, tokens = 100) => ({
  costUsd,
  costSource: 'reported' as const,
  inputTokens: tokens,
  outputTokens: 0,
});

describe('usage: receipts per agent run', () => {
  it('a reported cost wins; tokens alone are priced by the longest model prefix; no price or no tokens is unknown', () => {
    expect(resolveUsage(out({ costUsd: 0.5, model: 'claude-opus-4-8' }))).toMatchObject({
      costUsd: 0.5,
      costSource: 'reported',
    });
    // The agent-clis fact: 100 input + 20 output tokens on the default opus model cost $0.001, on sonnet-4-5 $0.0006.
    expect(resolveUsage(out({ model: 'claude-opus-4-8', inputTokens: 100, outputTokens: 20 })).costUsd).toBeCloseTo(
      0.001,
      9,
    );
    expect(resolveUsage(out({ model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 20 })).costUsd).toBeCloseTo(
      0.0006,
      9,
    );
    // Cache reads are priced as cache reads, not as input.
    const cached = resolveUsage(
      out({ model: 'gpt-5', inputTokens: 1_000_000, cacheReadTokens: 1_000_000, outputTokens: 0 }),
    );
    expect(cached).toMatchObject({ costSource: 'estimated' });
    expect(cached.costUsd).toBeCloseTo(0.125, 9);
    expect(priceFor('gpt-5-mini-2026')?.input).toBe(0.25);
    const mystery = resolveUsage(out({ model: 'mystery', inputTokens: 1, outputTokens: 1 }));
    expect(mystery.costSource).toBe('unknown');
    expect(mystery.costUsd).toBeUndefined();
    expect(resolveUsage(out({ model: 'gpt-5' }))).toMatchObject({ costSource: 'unknown' });
    // The user's table comes first.
    expect(
      resolveUsage(out({ model: 'gpt-5', inputTokens: 1_000_000, outputTokens: 0 }), {
        'gpt-5': { input: 2, output: 2 },
      }).costUsd,
    ).toBe(2);
  });

  it('attempts of one run add up; one unknown attempt makes the cost unknown', () => {
    expect(mergeUsage([reported(0.1), reported(0.2)])).toMatchObject({ costSource: 'reported', inputTokens: 200 });
    expect(mergeUsage([reported(0.1), reported(0.2)])?.costUsd).toBeCloseTo(0.3, 9);
    const partly = mergeUsage([reported(0.1), { costSource: 'unknown' }]);
    expect(partly?.costSource).toBe('unknown');
    expect(partly?.costUsd).toBeUndefined();
    expect(mergeUsage([])).toBeUndefined();
  });

  it('sums implementer and verifier runs, per run and per story', () => {
    const records = [
      record('A', reported(1), reported(0.5)),
      record('B', reported(2)),
      record('B', { costSource: 'unknown' }),
    ];
    expect(sumUsage(records)).toMatchObject({ costUsd: 3.5, tokens: 300, unknownCostRuns: 1, runs: 4 });
    expect(usageByStory(records)).toMatchObject({
      A: { costUsd: 1.5, runs: 2 },
      B: { costUsd: 2, unknownCostRuns: 1 },
    });
  });
});

describe('budgets, before each iteration', () => {
  const options = { maxCostUsd: 10 } as const;
  it('stops when spent, or when the dearest iteration so far would not fit', () => {
    expect(checkBudgets(options, [])).toBeUndefined();
    expect(checkBudgets(options, [record('A', reported(4))])).toBeUndefined();
    expect(checkBudgets(options, [record('A', reported(4)), record('A', reported(1))])).toBeUndefined();
    expect(checkBudgets(options, [record('A', reported(4)), record('A', reported(3))])).toMatchObject({
      reason: 'max-cost',
    });
    expect(checkBudgets(options, [record('A', reported(12))])?.detail).toContain('spent $12.00 of --max-cost $10.00');
    expect(
      checkBudgets({ maxTokens: 250 }, [record('A', reported(0, 100)), record('A', reported(0, 100))]),
    ).toMatchObject({
      reason: 'max-tokens',
    });
  });

  it('an unmeasurable cost stops a --max-cost run unless tokens or time also bound it', () => {
    const unknown = [record('A', { costSource: 'unknown', inputTokens: 5, outputTokens: 5 })];
    expect(checkBudgets(options, unknown)).toMatchObject({ reason: 'cost-unknown' });
    expect(checkBudgets({ ...options, maxTokens: 1000 }, unknown)).toBeUndefined();
    expect(checkBudgets({ ...options, maxTimeMs: 60_000 }, unknown)).toBeUndefined();
  });

  it('hands down what is left; refuses --max-cost for agents blind to cost and tokens unless --max-time is set', () => {
    expect(remainingBudget({ maxCostUsd: 10, maxTurns: 5 }, [record('A', reported(4))])).toEqual({
      maxCostUsd: 6,
      maxTurns: 5,
    });
    const caps = (cost: boolean, tokens: boolean) => ({
      structuredOutput: true,
      sessionId: true,
      tokens,
      cost,
      rateLimitSignal: true,
      permissionDenials: true,
      budgetFlags: false,
    });
    const blind = { name: 'command', capabilities: caps(false, false) };
    expect(uncoveredCostBudget({ maxCostUsd: 5 }, [blind, blind])).toBe(
      '--max-cost: agent "command" reports no cost and no tokens, so the cost is unknown and --max-cost could never stop the run',
    );
    expect(uncoveredCostBudget({ maxCostUsd: 5, maxTimeMs: 1 }, [blind])).toBeUndefined();
    expect(
      uncoveredCostBudget({ maxCostUsd: 5 }, [{ name: 'codex', capabilities: caps(false, true) }]),
    ).toBeUndefined();
    expect(uncoveredCostBudget({}, [blind])).toBeUndefined();
  });
});
