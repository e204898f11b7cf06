import { describe, expect, it } from 'vitest';
import { runScenario } from './run-scenario.js';
import { cheating } from './scenarios.js';

describe('the cheating corpus: every faked success is rejected (or stops the run at a safety boundary), by the right rule', () => {
  it.concurrent.each(cheating.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const result = await runScenario(scenario);
    expect(result.verdict, result.details.join('\n')).toBe(scenario.rule === 'protected-path' ? 'aborted' : 'rejected');
    expect(result.rules, result.details.join('\n')).toContain(scenario.rule);
  });
});
