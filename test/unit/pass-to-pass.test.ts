import { describe, expect, it } from 'vitest';
import { passToPass } from '../../src/evidence/pass-to-pass.js';
import type { TestCase, TestReport, TestsFile } from '../../src/state/test-report-schema.js';
import { checkPassToPass } from '../../src/verify/check-pass-to-pass.js';
import { citeTestEvidence } from '../../src/verify/cite-test-evidence.js';
import { bodyLivesIn, testBodies } from '../../src/verify/test-bodies.js';
import { changeSet, fileChange } from '../helpers/change-of.js';

const perTest = (tests: TestCase[]): TestReport => ({ evidence: 'per-test', runner: 'node --test', tests });
const gate = (report: TestReport): TestsFile['gates'][number] => ({ name: 'test', command: 'npm test', report });
const t = (file: string, name: string, outcome: TestCase['outcome'] = 'pass'): TestCase => ({ file, name, outcome });
const rules = (findings: Array<{ rule: string }>) => findings.map((f) => f.rule);

describe('pass-to-pass from per-test results', () => {
  const before = [gate(perTest([t('test/a.test.js', 'adds'), t('test/a.test.js', 'subtracts')]))];

  it('a test that passed and fails, is skipped or todo now is named', () => {
    for (const [outcome, rule] of [
      ['fail', 'test-regressed'],
      ['skip', 'test-disabled'],
      ['todo', 'test-disabled'],
      ['cancelled', 'test-disabled'],
    ] as const) {
      const now = [gate(perTest([t('test/a.test.js', 'adds'), t('test/a.test.js', 'subtracts', outcome)]))];
      const { findings } = passToPass({ reference: before, now });
      expect(rules(findings)).toEqual([rule]);
      expect(findings[0]?.detail).toContain('"subtracts" (test/a.test.js)');
    }
  });

  it('a test moved to another file (or suite) under the same name is not gone', () => {
    const now = [gate(perTest([t('test/a.test.js', 'adds'), t('test/b.test.js', 'math > subtracts')]))];
    expect(passToPass({ reference: before, now })).toEqual({ findings: [], gone: [] });
  });

  it('a test gone under its name and identity is returned for the body search', () => {
    const now = [gate(perTest([t('test/a.test.js', 'adds')]))];
    expect(passToPass({ reference: before, now }).gone).toEqual([t('test/a.test.js', 'subtracts')]);
  });

  it('tests that were red or skipped before are not held against the claim', () => {
    const red = [gate(perTest([t('a', 'x', 'fail'), t('a', 'y', 'skip')]))];
    expect(passToPass({ reference: red, now: [gate(perTest([]))] })).toEqual({ findings: [], gone: [] });
  });

  it('with totals only: fewer tests run to a verdict is a finding; more is not', () => {
    const counts = (pass: number, fail: number): TestReport => ({
      evidence: 'counts',
      runner: 'vitest',
      totals: { pass, fail, skip: 0, todo: 0, cancelled: 0 },
    });
    const reference = [gate(counts(10, 0))];
    expect(rules(passToPass({ reference, now: [gate(counts(8, 0))] }).findings)).toEqual(['tests-fewer']);
    expect(passToPass({ reference, now: [gate(counts(12, 0))] }).findings).toEqual([]);
  });
});

const OLD = `import { test } from 'node:test';
import assert from 'node:assert/strict';

test('adds', () => {
  assert.equal(add(1, 2), 3);
});

test('subtracts', () => {
  const result = subtract(5, 3);
  assert.equal(result, 2);
});
`;

describe('renamed, merged and deleted tests, told apart by their bodies', () => {
  it('finds each test and its body', () => {
    expect(testBodies('test/a.test.js', OLD)).toEqual([
      { name: 'adds', lines: ['assert.equal(add(1, 2), 3);'] },
      { name: 'subtracts', lines: ['const result = subtract(5, 3);', 'assert.equal(result, 2);'] },
    ]);
    expect(
      testBodies('tests/test_a.py', 'def test_one():\n    assert one() == 1\n\ndef helper():\n    pass\n'),
    ).toEqual([{ name: 'test_one', lines: ['assert one() == 1'] }]);
  });

  it('a body lives on in order inside another (a merge), never when empty', () => {
    expect(bodyLivesIn(['a', 'b'], ['x', 'a', 'y', 'b'])).toBe(true);
    expect(bodyLivesIn(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(bodyLivesIn([], ['a'])).toBe(false);
  });

  const reference: TestsFile = {
    commit: 'c',
    gates: [gate(perTest([t('test/a.test.js', 'adds'), t('test/a.test.js', 'subtracts')]))],
  };

  it('a renamed test (same body, new name) is not gone', () => {
    const renamed = OLD.replace("test('subtracts'", "test('subtracts two numbers'");
    const work = changeSet([fileChange('test/a.test.js', OLD, renamed)]);
    const now = [gate(perTest([t('test/a.test.js', 'adds'), t('test/a.test.js', 'subtracts two numbers')]))];
    expect(checkPassToPass(reference, now, work)).toEqual([]);
  });

  it('two tests merged into one is not gone', () => {
    const merged = `import { test } from 'node:test';
import assert from 'node:assert/strict';

test('arithmetic', () => {
  assert.equal(add(1, 2), 3);
  const result = subtract(5, 3);
  assert.equal(result, 2);
});
`;
    const work = changeSet([fileChange('test/a.test.js', OLD, merged)]);
    expect(checkPassToPass(reference, [gate(perTest([t('test/a.test.js', 'arithmetic')]))], work)).toEqual([]);
  });

  it('a deleted test is a finding naming it', () => {
    const deleted = OLD.slice(0, OLD.indexOf("test('subtracts'"));
    const work = changeSet([fileChange('test/a.test.js', OLD, deleted)]);
    const findings = checkPassToPass(reference, [gate(perTest([t('test/a.test.js', 'adds')]))], work);
    expect(rules(findings)).toEqual(['test-gone']);
    expect(findings[0]?.detail).toContain('"subtracts" (test/a.test.js)');
  });

  it('a test moved where the runner does not look (out of its glob) is gone, body and all', () => {
    const kept = OLD.slice(0, OLD.indexOf("test('subtracts'"));
    const moved = OLD.replace("test('adds'", "test.skip('adds'");
    const work = changeSet([fileChange('test/a.test.js', OLD, kept), fileChange('spec/a.js', undefined, moved)]);
    const findings = checkPassToPass(reference, [gate(perTest([t('test/a.test.js', 'adds')]))], work);
    expect(rules(findings)).toEqual(['test-gone']);
  });

  it('a test whose body was gutted under a new name is gone', () => {
    const gutted = OLD.replace(/test\('subtracts'[\s\S]*$/, "test('subtraction', () => {\n  assert.ok(true);\n});\n");
    const work = changeSet([fileChange('test/a.test.js', OLD, gutted)]);
    const now = [gate(perTest([t('test/a.test.js', 'adds'), t('test/a.test.js', 'subtraction')]))];
    expect(rules(checkPassToPass(reference, now, work))).toEqual(['test-gone']);
  });
});

describe('a pattern cites what the tests did', () => {
  it('a finding on a test file gets that file’s results on the claim; other findings stay as they are', () => {
    const now = [gate(perTest([t('test/a.test.js', 'adds'), t('test/a.test.js', 'subtracts', 'skip')]))];
    const hint = { rule: 'skip-marker-added', file: 'test/a.test.js', line: 3, detail: '.skip added' };
    expect(citeTestEvidence(hint, now).detail).toBe(
      ".skip added (a pattern; the file's tests on the claim: 1 passed, 0 failed, 1 skipped or todo)",
    );
    const gone = { ...hint, file: 'test/b.test.js' };
    expect(citeTestEvidence(gone, now).detail).toContain('no test of this file ran');
    const source = { rule: 'lint-escape-added', file: 'src/a.js', detail: 'eslint-disable added' };
    expect(citeTestEvidence(source, now)).toEqual(source);
    const counts = [gate({ evidence: 'counts', runner: 'vitest' })];
    expect(citeTestEvidence(hint, counts)).toEqual(hint);
  });
});
