import type { Finding } from '../state/finding-schema.js';
import { executed, type TestCase, type TestsFile, testId } from '../state/test-report-schema.js';

type GateTests = TestsFile['gates'][number];

/** A test's name without its suites, parameters or module path: what survives a move to another file or suite. */
export function leafName(name: string): string {
  const leaf = name.split(/ > |::|\//).at(-1) ?? name;
  return leaf.replace(/\[.*\]$/, '').trim();
}

const tests = (n: number) => `${n} test${n === 1 ? '' : 's'}`;

const DISABLED: Record<string, string> = { skip: 'skipped', todo: 'marked todo (or xfail)', cancelled: 'cancelled' };

export interface PassToPassInput {
  /** The tests at the reference: the baseline, or the last accepted claim's run, whichever is later. */
  reference: readonly GateTests[];
  now: readonly GateTests[];
}

/**
 * Pass-to-pass, from per-test results: every test that passed at the reference must pass now. A test that
 * fails, is skipped, todo or cancelled by any mechanism, or is gone (not moved, not renamed, not merged) is
 * a finding naming it. Where a gate gives only its totals, fewer tests run to a verdict is a finding. Tests
 * gone under their identity and their name are returned: the caller looks for their bodies (a rename, a
 * merge) before holding them against the claim (goneFinding). Pure.
 */
export function passToPass(input: PassToPassInput): { findings: Finding[]; gone: TestCase[] } {
  const findings: Finding[] = [];
  const gone: TestCase[] = [];
  for (const ref of input.reference) {
    const now = input.now.find((g) => g.command === ref.command);
    if (!now) continue;
    const add = (rule: string, detail: string, file?: string) =>
      findings.push({ rule, gate: ref.name, command: ref.command, file, detail });
    const before = ref.report;
    const after = now.report;
    if (before.evidence === 'per-test' && after.evidence === 'per-test') {
      const nowById = new Map((after.tests ?? []).map((t) => [testId(t), t]));
      const passingLeaves = new Set(
        (after.tests ?? []).filter((t) => t.outcome === 'pass').map((t) => leafName(t.name)),
      );
      for (const test of before.tests ?? []) {
        if (test.outcome !== 'pass') continue;
        const current = nowById.get(testId(test));
        const shown = `"${test.name}"${test.file ? ` (${test.file})` : ''}`;
        if (current?.outcome === 'pass') continue;
        if (current?.outcome === 'fail') {
          add('test-regressed', `test ${shown} passed before and fails now`, test.file);
        } else if (current) {
          add('test-disabled', `test ${shown} passed before and is ${DISABLED[current.outcome]} now`, test.file);
        } else if (!passingLeaves.has(leafName(test.name))) {
          gone.push(test);
        }
      }
      continue;
    }
    if (before.totals && after.totals && executed(after.totals) < executed(before.totals)) {
      add(
        'tests-fewer',
        `gate "${ref.name}" ran ${tests(executed(after.totals))} to a verdict; ${executed(before.totals)} before ` +
          `(${after.runner ?? 'its runner'} reports totals only, so which ones cannot be told)`,
      );
    }
  }
  return { findings, gone };
}

/** The finding for tests gone without a trace (the caller looked for their bodies first). */
export function goneFinding(gone: readonly TestCase[]): Finding | undefined {
  if (gone.length === 0) return undefined;
  const shown = gone.slice(0, 5).map((t) => `"${t.name}"${t.file ? ` (${t.file})` : ''}`);
  const more = gone.length > 5 ? ` and ${gone.length - 5} more` : '';
  return {
    rule: 'test-gone',
    file: gone[0]?.file,
    detail:
      `${gone.length === 1 ? 'a test that passed before is' : `${gone.length} tests that passed before are`} ` +
      `gone: ${shown.join(', ')}${more} — not moved, renamed or merged into another test (no test has its body)`,
  };
}
