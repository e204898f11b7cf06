import type { Finding } from '../state/finding-schema.js';
import type { GateBaseline, GateComparison, GateResult } from '../state/state-schema.js';
import { countFailures } from './count-failures.js';

const RED_TEXT: Record<GateResult['status'], string> = {
  pass: 'passed',
  fail: 'failed',
  timeout: 'timed out',
  error: 'could not be run',
};
const isRed = (s: GateResult['status']) => s !== 'pass';
/** Failing is bad; not running at all (timeout, crash, command missing) is worse. */
const rank = (s: GateResult['status']) => (s === 'pass' ? 0 : s === 'fail' ? 1 : 2);

export function toBaseline(result: GateResult): GateBaseline {
  return {
    name: result.name,
    command: result.command,
    status: result.status,
    failures: result.status === 'pass' ? 0 : countFailures(result.tail),
    tests: result.tests,
  };
}

/**
 * Gates now against the baseline taken before iteration 1: a gate green then and red now rejects the claim;
 * so does a baseline-red gate that got worse (more failing tests where the runner's summary can be read,
 * or no longer running at all). A gate red then and no worse now is reported, not held against the claim.
 */
export function compareGates(
  baseline: readonly GateBaseline[],
  now: readonly GateResult[],
): { rows: GateComparison[]; findings: Finding[] } {
  const rows: GateComparison[] = [];
  const findings: Finding[] = [];
  for (const result of now) {
    const before = baseline.find((b) => b.command === result.command);
    const failures = result.status === 'pass' ? 0 : countFailures(result.tail);
    const row: GateComparison = {
      name: result.name,
      command: result.command,
      baseline: before ? { status: before.status, failures: before.failures } : undefined,
      now: { status: result.status, failures, tests: result.tests, modified: result.modified, reused: result.reused },
      outcome: 'ok',
    };
    const fail = (rule: string, detail: string) => {
      row.outcome = 'rejected';
      findings.push({ rule, gate: result.name, command: result.command, detail, output: result.tail });
    };
    const exit = result.exitCode !== undefined ? ` with exit code ${result.exitCode}` : '';
    if (!before || !isRed(before.status)) {
      if (isRed(result.status)) {
        fail(
          `gate-${result.status === 'fail' ? 'failed' : result.status}`,
          `gate "${result.name}" (\`${result.command}\`) ` +
            `${RED_TEXT[result.status]}${exit}${before ? '; it passed before iteration 1' : ''}`,
        );
      }
    } else if (!isRed(result.status)) {
      row.outcome = 'fixed';
    } else if (rank(result.status) > rank(before.status)) {
      fail(
        `gate-${result.status}`,
        `gate "${result.name}" (\`${result.command}\`) ${RED_TEXT[result.status]}${exit}; before iteration 1 it ` +
          `only ${RED_TEXT[before.status]}`,
      );
    } else if (failures !== undefined && before.failures !== undefined && failures > before.failures) {
      fail(
        'gate-worse',
        `gate "${result.name}" (\`${result.command}\`) has ${failures} failing tests; ${before.failures} failed ` +
          `before iteration 1`,
      );
    } else {
      row.outcome = 'still-red';
    }
    rows.push(row);
  }
  return { rows, findings };
}
