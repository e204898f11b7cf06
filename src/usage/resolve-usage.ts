import { type ModelPrice, priceFor } from './price-table.js';

export type CostSource = 'reported' | 'estimated' | 'unknown';

/** One agent run's receipt: tokens as reported, and the cost with where it came from. */
export interface Usage {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  costUsd?: number;
  costSource: CostSource;
}

/** What an agent's output says of its usage (the fields of the adapters' AgentOutput that matter here). */
export type ReportedUsage = Omit<Usage, 'costSource'>;

/**
 * The cost the agent reported; else one estimated from its tokens and the price table (the model's name
 * is needed for that); else unknown — never a guess.
 */
export function resolveUsage(output: ReportedUsage, prices: Readonly<Record<string, ModelPrice>> = {}): Usage {
  const tokens = {
    model: output.model,
    inputTokens: output.inputTokens,
    outputTokens: output.outputTokens,
    cacheReadTokens: output.cacheReadTokens,
    cacheWriteTokens: output.cacheWriteTokens,
  };
  if (output.costUsd !== undefined) return { ...tokens, costUsd: output.costUsd, costSource: 'reported' };
  const price = priceFor(output.model, prices);
  if (!price || output.inputTokens === undefined || output.outputTokens === undefined)
    return { ...tokens, costSource: 'unknown' };
  const cacheRead = output.cacheReadTokens ?? 0;
  const cacheWrite = output.cacheWriteTokens ?? 0;
  const plainInput = Math.max(0, output.inputTokens - cacheRead - cacheWrite);
  const costUsd =
    (plainInput * price.input +
      cacheRead * (price.cacheRead ?? price.input) +
      cacheWrite * (price.cacheWrite ?? price.input) +
      output.outputTokens * price.output) /
    1_000_000;
  return { ...tokens, costUsd, costSource: 'estimated' };
}

/** The receipts of several attempts of one run (a rate limit waited out) as one. */
export function mergeUsage(usages: readonly Usage[]): Usage | undefined {
  if (usages.length <= 1) return usages[0];
  const sum = (key: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'costUsd') =>
    usages.every((u) => u[key] === undefined) ? undefined : usages.reduce((total, u) => total + (u[key] ?? 0), 0);
  const unknown = usages.some((u) => u.costSource === 'unknown');
  return {
    model: [...usages].reverse().find((u) => u.model)?.model,
    inputTokens: sum('inputTokens'),
    outputTokens: sum('outputTokens'),
    cacheReadTokens: sum('cacheReadTokens'),
    cacheWriteTokens: sum('cacheWriteTokens'),
    costUsd: unknown ? undefined : sum('costUsd'),
    costSource: unknown ? 'unknown' : usages.some((u) => u.costSource === 'estimated') ? 'estimated' : 'reported',
  };
}
