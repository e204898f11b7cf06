import { FIRST_AGENT_HOOK } from './code-cache-file.js';

/**
 * Tells star-loop's loader that this run has started its first agent, so the compiled-code cache may now keep
 * the run's whole start-up path (src/start/load-bundle.ts). Once per process, after the current turn (the
 * agent is already running); nothing when no loader listens (tests, tsx).
 */
export function firstAgentStarted(): void {
  const key = Symbol.for(FIRST_AGENT_HOOK);
  const hook = (globalThis as Record<symbol, unknown>)[key];
  if (typeof hook !== 'function') return;
  delete (globalThis as Record<symbol, unknown>)[key];
  setImmediate(hook as () => void);
}
