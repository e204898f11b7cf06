import type { GateResult, Verification } from '../state/state-schema.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
type Summary = GateResult['tests'];

/** One gate's test evidence in a few words: per-test or totals and the runner, with the totals. Pure. */
export function describeGateTests(tests: Summary): string {
  if (!tests || tests.evidence === 'exit-code') return 'exit code only (no test results could be read)';
  const totals = tests.totals
    ? `: ${tests.totals.pass} passed, ${tests.totals.fail} failed, ${tests.totals.skip} skipped, ` +
      `${tests.totals.todo} todo`
    : '';
  return `${tests.evidence === 'per-test' ? 'every test by name' : 'totals only'} (${tests.runner})${totals}`;
}

/** Pass-to-pass's reference and fail-to-pass's outcome, as lines of facts. Pure. */
export function describeTestChecks(tests: Verification['tests']): string[] {
  const lines: string[] = [];
  if (tests?.reference) {
    lines.push(`pass-to-pass: compared with every test's result at ${tests.reference.slice(0, 12)}`);
  }
  const f2p = tests?.failToPass;
  if (f2p && !f2p.ran) lines.push(`fail-to-pass: not run — ${f2p.reason}`);
  if (f2p?.ran) {
    const flipped = f2p.flipped ?? [];
    const names = flipped.length
      ? `: ${flipped
          .slice(0, 8)
          .map((n) => `"${n}"`)
          .join(', ')}`
      : '';
    const took = f2p.durationMs !== undefined ? ` (${(f2p.durationMs / 1000).toFixed(1)} s)` : '';
    lines.push(
      f2p.evidence === 'per-test'
        ? `fail-to-pass: ${plural(flipped.length, 'test')} of the claim's ` +
            `${plural(f2p.tests?.length ?? 0, 'new or changed test')} fail without its source change and pass ` +
            `with it${names}${took}`
        : `fail-to-pass: ${flipped.length > 0 ? 'a test gate fails' : 'every test gate passes'} on the claim's ` +
            `base commit with only its test files applied${took}`,
    );
  }
  const m = tests?.mutants;
  if (m && !m.ran && m.reason) lines.push(`mutants: not run — ${m.reason}`);
  if (m?.ran) {
    const rows = m.mutants ?? [];
    const count = (o: string) => rows.filter((r) => r.outcome === o).length;
    const took = m.durationMs !== undefined ? ` in ${(m.durationMs / 1000).toFixed(1)} s` : '';
    lines.push(
      `mutants of the claimed lines: ${count('killed')} killed, ${count('survived')} survived` +
        `${count('unloadable') ? `, ${count('unloadable')} not parsing (not run)` : ''}${took}` +
        (m.advisory
          ? ' — no test catches the claimed code; recorded, not held against the claim (it adds no test; ' +
            '--require-tests would)'
          : ''),
    );
    for (const r of rows) lines.push(`  ${r.path}:${r.line} \`${r.change}\`: ${r.outcome}`);
  }
  return lines;
}

/**
 * What star-loop's own runs of the tests showed on a claim, as lines of facts: per gate its evidence and
 * totals, then the checks. For the verifier's brief. Pure.
 */
export function describeTestEvidence(gates: readonly GateResult[], tests: Verification['tests']): string[] {
  return [
    ...gates.map((g) => `gate "${g.name}" (\`${g.command}\`): ${g.status}; ${describeGateTests(g.tests)}`),
    ...describeTestChecks(tests),
  ];
}
