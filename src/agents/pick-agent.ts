/**
 * Which agent runs next: the primary unless the provider is limiting it; then the fallback if that one is
 * free; when both are limited, whichever is free first. Pure: `limitedUntil` is epoch ms per agent name.
 */
export function pickAgent(
  now: number,
  limitedUntil: Readonly<Record<string, number>>,
  primary: string,
  fallback?: string,
): string {
  const until = (name: string) => limitedUntil[name] ?? 0;
  if (!fallback || fallback === primary || until(primary) <= now) return primary;
  if (until(fallback) <= now) return fallback;
  return until(fallback) < until(primary) ? fallback : primary;
}

/** The backoff p-retry will wait before attempt `consumed + 2` at most (its jitter doubles at worst). */
export function longestBackoff(consumed: number, initialMs: number, maxMs: number): number {
  return Math.min(2 * initialMs * 2 ** consumed, maxMs);
}
