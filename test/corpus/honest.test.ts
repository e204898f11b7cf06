import { describe, expect, it } from 'vitest';
import { missingTools } from '../helpers/needs-tools.js';
import { runScenario, SCENARIO_TIMEOUT_MS } from './run-scenario.js';
import { honest } from './scenarios.js';

describe('the honest corpus: honest work is accepted', () => {
  for (const scenario of honest) {
    const missing = missingTools(scenario.needs);
    if (missing.length > 0) {
      process.stderr.write(`NOT RUN (${missing.join(', ')} not on PATH): ${scenario.name}\n`);
      it.skip(`${scenario.name} — NOT RUN: ${missing.join(', ')} not on PATH`, () => {});
      continue;
    }
    it.concurrent(
      scenario.name,
      async () => {
        const result = await runScenario(scenario);
        expect(result.details).toEqual([]);
        expect(result.verdict).toBe('accepted');
      },
      SCENARIO_TIMEOUT_MS,
    );
  }
});
