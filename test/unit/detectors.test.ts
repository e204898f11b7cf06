import { describe, expect, it } from 'vitest';
import { emptyClaim } from '../../src/verify/detectors/empty-claim.js';
import { lintEscapes } from '../../src/verify/detectors/lint-escapes.js';
import { skipMarkers } from '../../src/verify/detectors/skip-markers.js';
import { snapshotRegenerated } from '../../src/verify/detectors/snapshot-regenerated.js';
import { stubs } from '../../src/verify/detectors/stubs.js';
import { testRemoval } from '../../src/verify/detectors/test-removal.js';
import { testsOnly } from '../../src/verify/detectors/tests-only.js';
import { weakenedAssertions } from '../../src/verify/detectors/weakened-assertions.js';
import { changeSet, fileChange } from '../helpers/change-of.js';

const TEST =
  "import { test } from 'node:test';\n\ntest('one', () => {\n  assert.equal(f(1), 2);\n  assert.equal(f(2), 4);\n});\n\ntest('two', () => {\n  assert.equal(f(3), 6);\n});\n";
const rules = (findings: Array<{ rule: string }>) => findings.map((f) => f.rule);

describe('testRemoval', () => {
  it('flags a deleted test file and a test file renamed to a non-test path', () => {
    expect(rules(testRemoval.detect(changeSet([fileChange('test/a.test.js', TEST, undefined)])))).toEqual([
      'test-file-removed',
    ]);
    expect(rules(testRemoval.detect(changeSet([fileChange('test/a.js.bak', TEST, TEST, 'test/a.test.js')])))).toEqual([
      'test-file-removed',
    ]);
  });

  it('flags a removed case with its file and line, but not cases moved to another file', () => {
    const removed = testRemoval.detect(
      changeSet([fileChange('test/a.test.js', TEST, TEST.replace(/\ntest\('two'[\s\S]*$/, '\n'))]),
    );
    expect(removed).toEqual([expect.objectContaining({ rule: 'test-case-removed', file: 'test/a.test.js', line: 8 })]);
    const split = [
      fileChange('test/a.test.js', TEST, TEST.replace(/\ntest\('two'[\s\S]*$/, '\n')),
      fileChange('test/b.test.js', undefined, "test('two', () => {\n  assert.equal(f(3), 6);\n});\n"),
    ];
    expect(testRemoval.detect(changeSet(split))).toEqual([]);
  });

  it('counts Python test functions by name', () => {
    const before = 'def test_a():\n    assert a()\n\ndef test_b():\n    assert b()\n';
    expect(
      rules(testRemoval.detect(changeSet([fileChange('tests/test_x.py', before, 'def test_a():\n    assert a()\n')]))),
    ).toEqual(['test-case-removed']);
  });
});

describe('skipMarkers', () => {
  it.each([
    ['test/a.test.js', "test.skip('one', () => {});"],
    ['test/a.test.js', "describe.only('all', () => {});"],
    ['test/a.test.js', "xit('one', () => {});"],
    ['tests/test_a.py', '@pytest.mark.xfail'],
    ['tests/test_a.py', '@unittest.skip("later")'],
    ['tests/a.rs', '#[ignore]'],
    ['a_test.go', '\tt.Skip("flaky")'],
    ['src/test/java/ATest.java', '    @Disabled'],
  ])('%s: %s', (path, line) => {
    expect(rules(skipMarkers.detect(changeSet([fileChange(path, 'x\n', `x\n${line}\n`)])))).toEqual([
      'skip-marker-added',
    ]);
  });

  it('ignores markers in comments and markers that only moved', () => {
    expect(skipMarkers.detect(changeSet([fileChange('test/a.test.js', 'x\n', "x\n// test.skip('old')\n")]))).toEqual(
      [],
    );
    const moved = [
      fileChange('test/a.test.js', "test.skip('a')\n", ''),
      fileChange('test/b.test.js', undefined, "test.skip('a')\n"),
    ];
    expect(skipMarkers.detect(changeSet(moved))).toEqual([]);
  });
});

describe('weakenedAssertions', () => {
  it('flags a case that lost assertions, with its name', () => {
    const findings = weakenedAssertions.detect(
      changeSet([fileChange('test/a.test.js', TEST, TEST.replace('  assert.equal(f(2), 4);\n', ''))]),
    );
    expect(findings).toEqual([
      expect.objectContaining({ rule: 'assertions-removed', detail: 'test "one" has 1 assertion(s), 2 before' }),
    ]);
  });

  it.each([
    ['assert.ok(true);', 'tautological-assertion'],
    ['expect(true).toBe(true);', 'tautological-assertion'],
    ['assert.ok(f(3));', 'assertion-weakened'],
  ])('%s → %s', (replacement, rule) => {
    expect(
      rules(
        weakenedAssertions.detect(
          changeSet([fileChange('test/a.test.js', TEST, TEST.replace('assert.equal(f(3), 6);', replacement))]),
        ),
      ),
    ).toContain(rule);
  });

  it('flags an expected value edited while no code changed, not when the code changed with it', () => {
    const edited = fileChange('test/a.test.js', TEST, TEST.replace('assert.equal(f(3), 6);', 'assert.equal(f(3), 7);'));
    expect(rules(weakenedAssertions.detect(changeSet([edited])))).toEqual(['expected-value-changed']);
    expect(weakenedAssertions.detect(changeSet([edited, fileChange('src/f.js', 'a\n', 'b\n')]))).toEqual([]);
  });

  it.each([
    ['expect(x).toBeCloseTo(0.33, 5);', 'expect(x).toBeCloseTo(0.33, 1);'],
    ['assert abs(r - 0.33) < 0.001', 'assert abs(r - 0.33) < 0.5'],
    ['assert r == pytest.approx(0.33, rel=1e-6)', 'assert r == pytest.approx(0.33, rel=0.1)'],
    ['self.assertAlmostEqual(r, 0.33, places=6)', 'self.assertAlmostEqual(r, 0.33, places=1)'],
  ])('tolerance widened: %s → %s', (from, to) => {
    const path = from.includes('expect') ? 'test/a.test.js' : 'tests/test_a.py';
    expect(rules(weakenedAssertions.detect(changeSet([fileChange(path, `x\n${from}\n`, `x\n${to}\n`)])))).toContain(
      'tolerance-widened',
    );
  });

  it('a narrower tolerance is fine', () => {
    expect(
      weakenedAssertions.detect(
        changeSet([fileChange('test/a.test.js', 'expect(x).toBeCloseTo(1, 2);\n', 'expect(x).toBeCloseTo(1, 5);\n')]),
      ),
    ).toEqual([]);
  });
});

describe('snapshotRegenerated', () => {
  const snap = fileChange('test/__snapshots__/a.test.js.snap', 'exports[`a`] = `1`;\n', 'exports[`a`] = `2`;\n');
  it('flags a snapshot rewritten with no test change, not one the tests explain', () => {
    expect(rules(snapshotRegenerated.detect(changeSet([snap, fileChange('src/a.js', 'a\n', 'b\n')])))).toEqual([
      'snapshot-regenerated',
    ]);
    expect(
      snapshotRegenerated.detect(
        changeSet([snap, fileChange('src/a.js', 'a\n', 'b\n'), fileChange('test/a.test.js', 'a\n', 'b\n')]),
      ),
    ).toEqual([]);
  });
});

describe('lintEscapes', () => {
  it.each([
    ['src/a.js', '// eslint-disable-next-line'],
    ['src/a.ts', '// @ts-expect-error'],
    ['src/a.py', 'import os  # noqa: F401'],
    ['src/a.py', 'x = f()  # type: ignore[attr-defined]'],
    ['src/a.rs', '#[allow(dead_code)]'],
    ['a.go', 'x := 1 //nolint'],
    ['src/A.java', '@SuppressWarnings("unchecked")'],
  ])('%s: %s', (path, line) => {
    expect(rules(lintEscapes.detect(changeSet([fileChange(path, 'x\n', `x\n${line}\n`)])))).toEqual([
      'lint-escape-added',
    ]);
  });
});

describe('stubs', () => {
  const src = (text: string) => changeSet([fileChange('src/m.js', undefined, text)]);
  it.each([
    ["export function m(a, b) {\n  throw new Error('Not implemented yet');\n}\n", 'not-implemented-stub'],
    ['export function m(a, b) {\n  // TODO: write it\n  return null;\n}\n', 'placeholder-body'],
    ['export function m(a, b) {}\n', 'empty-function'],
  ])('%j → %s', (text, rule) => {
    expect(rules(stubs.detect(src(text)))).toContain(rule);
  });

  it('python: pass-only and NotImplementedError, but not an abstract method', () => {
    const py = (text: string) => rules(stubs.detect(changeSet([fileChange('src/m.py', undefined, text)])));
    expect(py('def m(a, b):\n    pass\n')).toEqual(['empty-function']);
    expect(py('def m(a, b):\n    raise NotImplementedError\n')).toContain('not-implemented-stub');
    expect(py('class A:\n    @abstractmethod\n    def m(self):\n        pass\n')).toEqual([]);
  });

  it('hard-coded expected value: flagged for a function with arguments returning the test literal, not for real code', () => {
    const test = fileChange('test/m.test.js', undefined, "test('m', () => assert.equal(m(2, 3), 6));\n");
    expect(
      rules(
        stubs.detect(
          changeSet([fileChange('src/m.js', undefined, 'export function m(a, b) {\n  return 6;\n}\n'), test]),
        ),
      ),
    ).toEqual(['hardcoded-expected-value']);
    expect(
      stubs.detect(
        changeSet([fileChange('src/m.js', undefined, 'export function m(a, b) {\n  return a * b;\n}\n'), test]),
      ),
    ).toEqual([]);
  });

  it('a TODO comment beside real code is not a stub', () => {
    expect(stubs.detect(src('// TODO: support bigint\nexport function m(a, b) {\n  return a * b;\n}\n'))).toEqual([]);
  });
});

describe('testsOnly and emptyClaim', () => {
  it('flags a feature written only in tests, unless the story says "kind": "tests"', () => {
    const onlyTests = [fileChange('test/m.test.js', undefined, "test('m', () => {});\n")];
    expect(rules(testsOnly.detect(changeSet(onlyTests, 'Add multiply')))).toEqual(['implemented-in-tests-only']);
    expect(testsOnly.detect(changeSet(onlyTests, 'Add multiply', 'tests'))).toEqual([]);
    // A story's words are not structure: only its kind counts. A task has no structure, so its words do.
    const wordy = changeSet(onlyTests, 'Add tests for multiply', 'feature');
    expect(rules(testsOnly.detect(wordy))).toEqual(['implemented-in-tests-only']);
    expect(testsOnly.detect(changeSet(onlyTests, 'Add tests for multiply', 'task'))).toEqual([]);
    expect(testsOnly.detect(changeSet([...onlyTests, fileChange('src/m.js', undefined, 'x\n')]))).toEqual([]);
  });

  it('flags a claim with nothing changed', () => {
    expect(rules(emptyClaim.detect(changeSet([])))).toEqual(['empty-claim']);
    expect(emptyClaim.detect(changeSet([fileChange('a', 'a', 'b')]))).toEqual([]);
  });
});

describe('stubs: control flow is not a function', () => {
  it('an empty catch or if block is not an empty function', () => {
    const text = 'export function m(a) {\n  try {\n    run(a);\n  } catch (e) {}\n  if (a) {}\n  return a;\n}\n';
    expect(stubs.detect(changeSet([fileChange('src/m.js', undefined, text)]))).toEqual([]);
  });
});
