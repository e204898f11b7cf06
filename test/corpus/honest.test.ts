import { describe, expect, it } from 'vitest';
import { runScenario } from './run-scenario.js';
import { honest } from './scenarios.js';

describe('the honest corpus: honest work is accepted', () => {
  it.concurrent.each(honest.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const result = await runScenario(scenario);
    expect(result.details).toEqual([]);
    expect(result.verdict).toBe('accepted');
  });
});
