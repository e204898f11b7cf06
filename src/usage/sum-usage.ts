import type { IterationRecord, UsageRecord } from '../state/state-schema.js';

/** Cost and tokens of one iteration or of several, with how many agent runs reported no cost. */
export interface UsageTotals {
  costUsd: number;
  tokens: number;
  /** Agent runs whose cost is unknown (neither reported nor priced): the cost total is then a floor. */
  unknownCostRuns: number;
  /** Agent runs whose tokens are unknown. */
  unknownTokenRuns: number;
  /** How many of the summed costs were estimated from tokens and the price table. */
  estimatedRuns: number;
  runs: number;
}

const empty = (): UsageTotals => ({
  costUsd: 0,
  tokens: 0,
  unknownCostRuns: 0,
  unknownTokenRuns: 0,
  estimatedRuns: 0,
  runs: 0,
});

function add(totals: UsageTotals, usage: UsageRecord | undefined): void {
  totals.runs += 1;
  if (usage?.costUsd !== undefined) totals.costUsd += usage.costUsd;
  else totals.unknownCostRuns += 1;
  if (usage?.costSource === 'estimated') totals.estimatedRuns += 1;
  if (usage?.inputTokens !== undefined || usage?.outputTokens !== undefined)
    totals.tokens += (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  else totals.unknownTokenRuns += 1;
}

/** One iteration's receipt: the implementer's run and the verifier's, if one ran. */
export function iterationUsage(record: IterationRecord): UsageTotals {
  const totals = empty();
  add(totals, record.agent.usage);
  const verifier = record.verification?.verifier;
  if (verifier && !verifier.rateLimited) add(totals, verifier.usage);
  return totals;
}

export function sumUsage(records: readonly IterationRecord[]): UsageTotals {
  const totals = empty();
  for (const record of records) {
    const one = iterationUsage(record);
    for (const key of Object.keys(totals) as Array<keyof UsageTotals>) totals[key] += one[key];
  }
  return totals;
}

/** Per story (or `task`), for the report's receipts. */
export function usageByStory(records: readonly IterationRecord[]): Record<string, UsageTotals> {
  const groups = new Map<string, IterationRecord[]>();
  for (const record of records) {
    const key = record.story ?? 'task';
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  return Object.fromEntries([...groups].map(([story, list]) => [story, sumUsage(list)]));
}

/** The most one iteration has cost so far: what the next one is assumed to need. */
export function largestIteration(records: readonly IterationRecord[]): { costUsd: number; tokens: number } {
  let costUsd = 0;
  let tokens = 0;
  for (const record of records) {
    const one = iterationUsage(record);
    costUsd = Math.max(costUsd, one.costUsd);
    tokens = Math.max(tokens, one.tokens);
  }
  return { costUsd, tokens };
}

export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd >= 1 ? 2 : 4)}`;
}
