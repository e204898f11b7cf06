import type { GateBaseline } from '../state/state-schema.js';
import type { Gate } from './gate.js';

/**
 * What a gate can say about a claim: `yes` (green before iteration 1, so red now means the claim broke it),
 * `per-test` (red before, but its tests are read one by one: each that passed must still pass), `none` (red
 * or not running before, read by its exit code or totals alone: red now says nothing).
 */
export type GateSignal = 'yes' | 'per-test' | 'none';

export interface GateHealth {
  name: string;
  command: string;
  kind: Gate['kind'];
  /** Before iteration 1; absent before the baseline is taken. */
  baseline?: GateBaseline['status'];
  signal?: GateSignal;
}

export function signalOf(baseline: GateBaseline): GateSignal {
  if (baseline.status === 'pass') return 'yes';
  const tests = baseline.tests;
  if (baseline.status === 'fail' && tests?.evidence === 'per-test' && (tests.totals?.pass ?? 0) > 0) return 'per-test';
  return 'none';
}

/** Every gate: what it checks, how it stood before iteration 1, and whether it gives a signal. Pure. */
export function gateHealth(gates: readonly Gate[], baseline?: readonly GateBaseline[]): GateHealth[] {
  return gates.map((g) => {
    const before = baseline?.find((b) => b.command === g.command);
    return {
      name: g.name,
      command: g.command,
      kind: g.kind,
      baseline: before?.status,
      signal: before ? signalOf(before) : undefined,
    };
  });
}

/**
 * Why the gates cannot tell a claim's tests from no tests, if they cannot: no gate runs tests, or every test
 * gate was red by its exit code alone, or could not run, before iteration 1. Then "verified" would be a
 * claim star-loop cannot back. Pure.
 */
export function testsGap(gates: readonly Gate[], baseline?: readonly GateBaseline[]): string | undefined {
  const tests = gateHealth(gates, baseline).filter((g) => g.kind === 'test');
  if (tests.length === 0) {
    const kinds = [...new Set(gates.map((g) => g.kind))].join(', ');
    return gates.length === 0
      ? 'no gate runs tests (no gates were found)'
      : `no gate runs tests (the gates found only ${kinds}): a claim's tests are never run by star-loop`;
  }
  if (!baseline || tests.some((g) => g.signal !== 'none')) return undefined;
  const states = tests.map(
    (g) => `${g.name} ${g.baseline === 'fail' ? 'red' : g.baseline === 'timeout' ? 'timed out' : 'could not run'}`,
  );
  return (
    `every test gate was red or could not run before iteration 1 (${states.join(', ')}): red again says ` +
    'nothing about a claim'
  );
}
