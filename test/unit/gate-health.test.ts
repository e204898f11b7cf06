import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/gates/gate.js';
import { gateHealth, testsGap } from '../../src/gates/gate-health.js';
import type { GateBaseline } from '../../src/state/state-schema.js';

const gate = (name: string, kind: Gate['kind']): Gate => ({ name, command: name, kind, source: 'x' });
const base = (name: string, status: GateBaseline['status'], pass?: number): GateBaseline => ({
  name,
  command: name,
  status,
  tests:
    pass === undefined
      ? undefined
      : { evidence: 'per-test', totals: { pass, fail: 1, skip: 0, todo: 0, cancelled: 0 } },
});

describe('gate health', () => {
  it('a gate gives a signal when green before; a red one with tests read singly, test by test; else none', () => {
    const gates = [gate('lint', 'lint'), gate('unit', 'test'), gate('e2e', 'test'), gate('slow', 'test')];
    const health = gateHealth(gates, [
      base('lint', 'pass'),
      base('unit', 'fail', 12),
      base('e2e', 'fail'),
      base('slow', 'timeout'),
    ]);
    expect(health.map((h) => `${h.name} ${h.kind} ${h.baseline} ${h.signal}`)).toEqual([
      'lint lint pass yes',
      'unit test fail per-test',
      'e2e test fail none',
      'slow test timeout none',
    ]);
  });

  it('the gap: no gate runs tests; every test gate red or not running; none while one test gate gives a signal', () => {
    expect(testsGap([gate('lint', 'lint'), gate('tsc', 'typecheck')])).toBe(
      "no gate runs tests (the gates found only lint, typecheck): a claim's tests are never run by star-loop",
    );
    expect(testsGap([])).toBe('no gate runs tests (no gates were found)');
    const tests = [gate('unit', 'test'), gate('e2e', 'test')];
    expect(testsGap(tests)).toBeUndefined();
    expect(testsGap(tests, [base('unit', 'fail'), base('e2e', 'error')])).toBe(
      'every test gate was red or could not run before iteration 1 (unit red, e2e could not run): red again says ' +
        'nothing about a claim',
    );
    expect(testsGap(tests, [base('unit', 'fail', 3), base('e2e', 'error')])).toBeUndefined();
    expect(testsGap(tests, [base('unit', 'pass'), base('e2e', 'error')])).toBeUndefined();
  });
});
