import type { IterationRecord } from '../state/state-schema.js';
import type { StopReason } from '../state/stop-reasons.js';
import { formatUsd, largestIteration, sumUsage, type UsageTotals } from './sum-usage.js';

/** The budgets of a run (its resolved options hold them). */
export interface Budgets {
  maxCostUsd?: number;
  maxTokens?: number;
  maxTurns?: number;
  maxTimeMs?: number;
}

/** What is left for the next agent run, for agents that enforce a budget themselves. */
export function remainingBudget(
  options: Budgets,
  records: readonly IterationRecord[],
): { maxCostUsd?: number; maxTurns?: number } {
  const spent = sumUsage(records).costUsd;
  return {
    maxCostUsd: options.maxCostUsd !== undefined ? Math.max(0, options.maxCostUsd - spent) : undefined,
    maxTurns: options.maxTurns,
  };
}

/**
 * Before an iteration (pure): stop when a budget is spent, or when the next iteration would not fit — it is
 * assumed to cost as much as the dearest one so far. A cost budget that cannot be measured (an agent run
 * with no reported or priced cost) stops the run unless --max-tokens or --max-time also bounds it.
 */
export function checkBudgets(options: Budgets, records: readonly IterationRecord[]): BudgetStop | undefined {
  return checkBudgetTotals(options, sumUsage(records), largestIteration(records));
}

type BudgetStop = { reason: Extract<StopReason, 'max-cost' | 'max-tokens' | 'cost-unknown'>; detail: string };

/** The same decision from totals: what has been spent, and what the dearest iteration so far took. */
export function checkBudgetTotals(
  options: Budgets,
  spent: Pick<UsageTotals, 'costUsd' | 'tokens' | 'unknownCostRuns'>,
  next: { costUsd: number; tokens: number },
): BudgetStop | undefined {
  if (options.maxCostUsd !== undefined) {
    const max = options.maxCostUsd;
    if (spent.unknownCostRuns > 0 && options.maxTokens === undefined && options.maxTimeMs === undefined) {
      return {
        reason: 'cost-unknown',
        detail:
          `--max-cost ${formatUsd(max)} cannot be enforced: ${spent.unknownCostRuns} agent run(s) reported ` +
          `no cost and no price is known for their model (add it to "prices" in star.config.json, or also ` +
          `set --max-tokens or --max-time)`,
      };
    }
    if (spent.costUsd >= max)
      return { reason: 'max-cost', detail: `spent ${formatUsd(spent.costUsd)} of --max-cost ${formatUsd(max)}` };
    if (spent.costUsd + next.costUsd > max) {
      return {
        reason: 'max-cost',
        detail:
          `the next iteration would not fit in --max-cost ${formatUsd(max)}: spent ` +
          `${formatUsd(spent.costUsd)}, and an iteration has cost up to ${formatUsd(next.costUsd)}`,
      };
    }
  }
  if (options.maxTokens !== undefined) {
    const max = options.maxTokens;
    if (spent.tokens >= max) return { reason: 'max-tokens', detail: `used ${spent.tokens} of --max-tokens ${max}` };
    if (spent.tokens + next.tokens > max) {
      return {
        reason: 'max-tokens',
        detail:
          `the next iteration would not fit in --max-tokens ${max}: used ${spent.tokens}, and an iteration ` +
          `has used up to ${next.tokens}`,
      };
    }
  }
  return undefined;
}

/**
 * At start: --max-cost with agents that can report neither cost nor tokens would never stop the run, so it
 * needs a budget that does cover them. Returns the problem, or undefined.
 */
export function uncoveredCostBudget(
  options: Budgets,
  agents: ReadonlyArray<{ name: string; capabilities: { cost: boolean; tokens: boolean } }>,
): string | undefined {
  if (options.maxCostUsd === undefined) return undefined;
  const blind = [...new Map(agents.map((a) => [a.name, a])).values()].filter(
    (a) => !a.capabilities.cost && !a.capabilities.tokens,
  );
  if (blind.length === 0 || options.maxTimeMs !== undefined) return undefined;
  return (
    `--max-cost: agent ${blind.map((a) => `"${a.name}"`).join(', ')} reports no cost and no tokens, so the ` +
    `cost is unknown and --max-cost could never stop the run`
  );
}
