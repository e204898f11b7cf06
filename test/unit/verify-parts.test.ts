import { describe, expect, it } from 'vitest';
import { compareGates } from '../../src/gates/compare-gates.js';
import { countFailures } from '../../src/gates/count-failures.js';
import { parseUnifiedDiff } from '../../src/git/parse-unified-diff.js';
import type { GateResult } from '../../src/state/state-schema.js';
import { checkGatePins } from '../../src/verify/check-gate-pins.js';
import { readVerdict } from '../../src/verify/run-verifier.js';
import { changeSet, fileChange } from '../helpers/change-of.js';

describe('countFailures reads each runner’s summary', () => {
  it.each([
    ['node --test', '# tests 5\n# pass 3\n# fail 2\n', 2],
    ['node spec reporter', 'ℹ tests 5\nℹ fail 1\n', 1],
    ['vitest', ' Test Files  1 failed (1)\n      Tests  3 failed | 7 passed (10)\n', 3],
    ['jest', 'Tests:       2 failed, 8 passed, 10 total\n', 2],
    ['pytest', '=========== 4 failed, 10 passed in 0.52s ===========\n', 4],
    ['mocha', '  10 passing (20ms)\n  3 failing\n', 3],
    [
      'cargo (two crates)',
      'test result: FAILED. 3 passed; 1 failed; 0 ignored\ntest result: FAILED. 1 passed; 2 failed; 0 ignored\n',
      3,
    ],
    ['go test', '--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\n', 2],
    ['unknown', 'something went wrong\n', undefined],
  ])('%s', (_runner, output, expected) => {
    expect(countFailures(output)).toBe(expected);
  });
});

describe('compareGates against the baseline', () => {
  const gate = (status: GateResult['status'], tail = ''): GateResult => ({
    name: 't',
    command: 'npm test',
    status,
    durationMs: 1,
    tail,
    exitCode: status === 'pass' ? 0 : 1,
  });
  const base = (status: GateResult['status'], failures?: number) => [
    { name: 't', command: 'npm test', status, failures },
  ];
  it.each<[string, ReturnType<typeof base>, GateResult, string, string | undefined]>([
    ['green stays green', base('pass', 0), gate('pass'), 'ok', undefined],
    ['green turns red', base('pass', 0), gate('fail', '# fail 1\n'), 'rejected', 'gate-failed'],
    ['green, now cannot run', base('pass', 0), gate('error'), 'rejected', 'gate-error'],
    ['red gets fixed', base('fail', 2), gate('pass'), 'fixed', undefined],
    ['red stays as red', base('fail', 2), gate('fail', '# fail 2\n'), 'still-red', undefined],
    ['red gets better', base('fail', 2), gate('fail', '# fail 1\n'), 'still-red', undefined],
    ['red gets worse', base('fail', 2), gate('fail', '# fail 3\n'), 'rejected', 'gate-worse'],
    ['red, now times out', base('fail', 2), gate('timeout'), 'rejected', 'gate-timeout'],
    ['red, uncountable both times', base('fail'), gate('fail', 'boom'), 'still-red', undefined],
    ['no baseline for the gate: must pass', [], gate('fail'), 'rejected', 'gate-failed'],
  ])('%s', (_name, baseline, now, outcome, rule) => {
    const { rows, findings } = compareGates(baseline, [now]);
    expect(rows[0]?.outcome).toBe(outcome);
    expect(findings[0]?.rule).toBe(rule);
  });
});

describe('checkGatePins', () => {
  const pkg = (test: string, extra = {}) =>
    JSON.stringify({ name: 'x', scripts: { test, dev: 'vite' }, ...extra }, null, 2);
  it.each([
    [
      'a gate script',
      fileChange('package.json', pkg('vitest run'), pkg('vitest run --passWithNoTests')),
      'package.json: scripts.test changed from "vitest run" to "vitest run --passWithNoTests"',
    ],
    [
      'jest config in package.json',
      fileChange('package.json', pkg('jest'), pkg('jest', { jest: { testPathIgnorePatterns: ['slow'] } })),
      'package.json: jest changed',
    ],
    [
      'a Makefile test target',
      fileChange('Makefile', 'test:\n\tgo test ./...\n', 'test:\n\tgo test ./... || true\n'),
      'Makefile: target test changed',
    ],
    [
      'pytest addopts',
      fileChange(
        'pyproject.toml',
        '[tool.pytest.ini_options]\naddopts = "-q"\n',
        '[tool.pytest.ini_options]\naddopts = "-q -k not slow"\n',
      ),
      'pyproject.toml: [tool.pytest.ini_options] changed',
    ],
    [
      'a vitest config',
      fileChange('vitest.config.ts', 'export default {}', "export default { test: { exclude: ['x'] } }"),
      'vitest.config.ts (test runner, linter and CI configuration) was changed',
    ],
    [
      'a workflow',
      fileChange('.github/workflows/ci.yml', 'run: npm test', 'run: npm test || true'),
      '.github/workflows/ci.yml',
    ],
    [
      'tsconfig strictness',
      fileChange('tsconfig.json', '{"compilerOptions": {"strict": true}}', '{"compilerOptions": {"strict": false}}'),
      'tsconfig.json: compilerOptions.strict changed from true to false',
    ],
  ])('%s', (_name, change, detail) => {
    const findings = checkGatePins(changeSet([change]));
    expect(findings.map((f) => f.rule)).toEqual(['gate-changed']);
    expect(findings[0]?.detail).toContain(detail);
  });

  it('ignores what does not change a gate: other scripts, dependencies, other tsconfig options', () => {
    expect(
      checkGatePins(changeSet([fileChange('package.json', pkg('jest'), pkg('jest', { dependencies: { a: '1' } }))])),
    ).toEqual([]);
    const devScript = JSON.stringify({ scripts: { test: 'jest', dev: 'vite --port 4000' } });
    expect(checkGatePins(changeSet([fileChange('package.json', pkg('jest'), devScript)]))).toEqual([]);
    // A script added since recon is one no gate runs; a gate that starts to run it changes its own script.
    const watch = JSON.stringify({ scripts: { test: 'jest', 'test:watch': 'jest --watch', dev: 'vite' } });
    expect(checkGatePins(changeSet([fileChange('package.json', pkg('jest'), watch)]))).toEqual([]);
    const calls = JSON.stringify({ scripts: { test: 'npm run test:watch', 'test:watch': 'true', dev: 'vite' } });
    expect(checkGatePins(changeSet([fileChange('package.json', pkg('jest'), calls)])).map((f) => f.detail)).toEqual([
      'package.json: scripts.test changed from "jest" to "npm run test:watch": the gates are pinned for the run',
    ]);
    expect(
      checkGatePins(
        changeSet([
          fileChange(
            'tsconfig.json',
            '{"compilerOptions": {"target": "ES2020"}}',
            '{"compilerOptions": {"target": "ES2022"}}',
          ),
        ]),
      ),
    ).toEqual([]);
  });
});

describe('parseUnifiedDiff', () => {
  it('reads added and removed lines with their numbers, renames and deletions', () => {
    const diff = [
      'diff --git a/a.js b/a.js',
      'index 1..2 100644',
      '--- a/a.js',
      '+++ b/a.js',
      '@@ -2 +2,2 @@',
      '-old',
      '+new',
      '+more',
      'diff --git a/old.js b/new.js',
      'similarity index 100%',
      'rename from old.js',
      'rename to new.js',
      'diff --git a/gone.js b/gone.js',
      'deleted file mode 100644',
      '--- a/gone.js',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
    ].join('\n');
    expect(parseUnifiedDiff(diff)).toEqual([
      {
        path: 'a.js',
        added: [
          { line: 2, text: 'new' },
          { line: 3, text: 'more' },
        ],
        removed: [{ line: 2, text: 'old' }],
      },
      { path: 'new.js', oldPath: 'old.js', added: [], removed: [] },
      { path: 'gone.js', added: [], removed: [{ line: 1, text: 'bye' }] },
    ]);
  });
});

describe('readVerdict: anything but a valid verdict is a reject', () => {
  it.each([
    [undefined, 'no verdict file was written'],
    ['{not json', 'not valid JSON'],
    ['{"verdict": "maybe"}', 'verdict verdict:'],
    ['{"findings": []}', 'verdict verdict:'],
  ])('%j', (text, reason) => {
    const v = readVerdict(text, 'claude', 10);
    expect(v.verdict).toBe('reject');
    expect(v.error).toContain(reason);
    expect(v.findings[0]?.rule).toBe('verifier-no-verdict');
  });

  it('keeps an accept, and a reject with its findings (a reject without findings still says so)', () => {
    expect(readVerdict('{"verdict":"accept","findings":[]}', 'a', 1)).toMatchObject({
      verdict: 'accept',
      findings: [],
    });
    const rejected = readVerdict(
      '{"verdict":"reject","findings":[{"rule":"criteria-unmet","file":"src/a.js","line":3,"detail":"no zero check"}]}',
      'a',
      1,
    );
    expect(rejected.findings).toEqual([
      { rule: 'criteria-unmet', file: 'src/a.js', line: 3, detail: 'verifier: no zero check' },
    ]);
    expect(readVerdict('{"verdict":"reject"}', 'a', 1).findings[0]?.rule).toBe('verifier-rejected');
  });
});
