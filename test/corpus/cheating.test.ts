import { describe, expect, it } from 'vitest';
import { missingTools } from '../helpers/needs-tools.js';
import { runScenario, SCENARIO_TIMEOUT_MS } from './run-scenario.js';
import { cheating } from './scenarios.js';

describe('the cheating corpus: every faked success is rejected (or stops the run at a safety boundary), by the right rule', () => {
  for (const scenario of cheating) {
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
        expect(result.verdict, result.details.join('\n')).toBe(
          scenario.rule === 'protected-path' ? 'aborted' : 'rejected',
        );
        expect(result.rules, result.details.join('\n')).toContain(scenario.rule);
      },
      SCENARIO_TIMEOUT_MS,
    );
  }
});
