/** USD per million tokens. Cache prices default to the input price where a provider has no discount. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * List prices (USD per million tokens) as published by the providers on 2026-11-01, matched by the longest
 * model-name prefix. Used only when an agent reports tokens but no cost; override or extend it with
 * `prices` in star.config.json, e.g. `"prices": { "my-model": { "input": 1, "output": 4 } }`.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.31 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075 },
  'gemini-3-pro': { input: 2, output: 12, cacheRead: 0.2 },
};

/** The price of a model: the longest matching prefix, the user's table before the built-in one. */
export function priceFor(
  model: string | undefined,
  overrides: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | undefined {
  if (!model) return undefined;
  const name = model.toLowerCase();
  for (const table of [overrides, DEFAULT_PRICES]) {
    const match = Object.keys(table)
      .filter((prefix) => name.startsWith(prefix.toLowerCase()))
      .sort((a, b) => b.length - a.length)[0];
    if (match) return table[match];
  }
  return undefined;
}
