import { describe, expect, it } from 'vitest';
import { FIRST_AGENT_HOOK } from '../../src/util/code-cache-file.js';
import { firstAgentStarted } from '../../src/util/first-agent-started.js';

const slot = globalThis as Record<symbol, unknown>;
const key = Symbol.for(FIRST_AGENT_HOOK);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('firstAgentStarted: the CLI telling its loader the run reached its first agent', () => {
  it("calls the loader's hook once, after the current turn, and takes it down", async () => {
    const calls: string[] = [];
    slot[key] = () => calls.push('saved');
    firstAgentStarted();
    expect(calls).toEqual([]);
    expect(key in slot).toBe(false);
    firstAgentStarted();
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual(['saved']);
  });

  it('does nothing when no loader listens (tests, tsx)', async () => {
    delete slot[key];
    expect(() => firstAgentStarted()).not.toThrow();
    slot[key] = 'not a function';
    firstAgentStarted();
    await nextTurn();
    expect(slot[key]).toBe('not a function');
    delete slot[key];
  });
});
