import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evidenceEnv } from '../../src/evidence/evidence-env.js';
import { parseCargoTest } from '../../src/evidence/parse-cargo-test.js';
import { parseGoTest } from '../../src/evidence/parse-go-test.js';
import { parseJunit } from '../../src/evidence/parse-junit.js';
import { parseMocha } from '../../src/evidence/parse-mocha.js';
import { parseTestCounts, stripAnsi } from '../../src/evidence/parse-test-counts.js';
import { countFailures } from '../../src/gates/count-failures.js';

/** Output recorded from the real runners (test/fixtures/runner-output/README.md). */
const recorded = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/runner-output', name), 'utf8');
const brief = (cases: Array<{ file: string; name: string; outcome: string }>) =>
  cases.map((c) => `${c.outcome} ${c.file} :: ${c.name}`);

describe('per-test results, parsed from what real runners wrote', () => {
  it('pytest JUnit XML: module and name, skip and xfail told apart, parameters kept', () => {
    expect(brief(parseJunit(recorded('pytest-junit.xml')))).toEqual([
      'pass tests.test_calc :: test_add',
      'fail tests.test_calc :: test_broken',
      'skip tests.test_calc :: test_skipped',
      'todo tests.test_calc :: test_known_bug',
      'pass tests.test_calc :: test_param[1-1-2]',
      'pass tests.test_calc :: test_param[2-3-5]',
      'pass tests.test_calc.TestGroup :: test_in_class',
    ]);
  });

  it("node's junit reporter: every test, todo and skip, the suite's test inside it", () => {
    const cases = parseJunit(recorded('node-junit.xml'));
    expect(cases.map((c) => `${c.outcome} ${c.name}`)).toEqual([
      'pass adds',
      'skip skipped one',
      'todo later',
      'fail fails',
      'pass inner ok',
      'pass b one',
    ]);
  });

  it('a JUnit report cut short yields the cases before the cut', () => {
    const xml = recorded('pytest-junit.xml');
    const cut = xml.slice(0, xml.indexOf('test_skipped'));
    expect(parseJunit(cut).map((c) => c.name)).toEqual(['test_add', 'test_broken']);
  });

  it('go test -v: tests and subtests by package; the package line names them', () => {
    expect(brief(parseGoTest(recorded('go-test-v.txt')))).toEqual([
      'pass example.com/calc :: TestAdd',
      'fail example.com/calc :: TestBroken',
      'skip example.com/calc :: TestSkipped',
      'pass example.com/calc :: TestTable',
      'pass example.com/calc :: TestTable/small',
      'pass example.com/calc :: TestTable/big',
      'pass example.com/calc/sub :: TestSub',
    ]);
    // Without -v go test names only the failures: no per-test identity for the passing ones.
    expect(brief(parseGoTest(recorded('go-test.txt')))).toEqual(['fail example.com/calc :: TestBroken']);
  });

  it('cargo test: every target (unit tests, integration tests, doc-tests) and its tests', () => {
    expect(brief(parseCargoTest(recorded('cargo-no-fail-fast.txt')))).toEqual([
      'pass src/lib.rs :: tests::adds',
      'skip src/lib.rs :: tests::slow',
      'fail src/lib.rs :: tests::broken',
      'pass tests/api.rs :: api_adds',
      'pass doc-tests calc :: src/lib.rs - add (line 3)',
    ]);
  });

  it("mocha's spec reporter: tests under their suites, failures and pending ones", () => {
    expect(brief(parseMocha(recorded('mocha.txt')))).toEqual([
      'pass  :: calc > adds',
      'fail  :: calc > broken',
      'skip  :: calc > skipped',
      'skip  :: calc > pending',
    ]);
    expect(parseMocha(recorded('node-spec.txt'))).toEqual([]);
  });
});

describe('totals, where a runner prints no test by name', () => {
  it.each([
    ['vitest.txt', 'vitest', { pass: 2, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['jest.txt', 'jest', { pass: 3, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['node-spec.txt', 'node --test', { pass: 3, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['node-tap.txt', 'node --test', { pass: 3, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['mocha.txt', 'mocha', { pass: 1, fail: 1, skip: 2, todo: 0, cancelled: 0 }],
    ['pytest.txt', 'pytest', { pass: 4, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['pytest-q.txt', 'pytest', { pass: 4, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['cargo-no-fail-fast.txt', 'cargo test', { pass: 3, fail: 1, skip: 1, todo: 0, cancelled: 0 }],
  ])('%s → %s', (file, runner, totals) => {
    expect(parseTestCounts(recorded(file))).toEqual({ runner, totals });
  });

  // Recorded with colour forced on (FORCE_COLOR=1, --color=yes, --color=always): a project's own settings can.
  it.each([
    ['vitest-color.txt', 'vitest', { pass: 2, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['jest-color.txt', 'jest', { pass: 3, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['node-spec-color.txt', 'node --test', { pass: 3, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['mocha-color.txt', 'mocha', { pass: 1, fail: 1, skip: 2, todo: 0, cancelled: 0 }],
    ['pytest-color.txt', 'pytest', { pass: 4, fail: 1, skip: 1, todo: 1, cancelled: 0 }],
    ['cargo-color.txt', 'cargo test', { pass: 1, fail: 1, skip: 1, todo: 0, cancelled: 0 }],
  ])('%s (in colour) → %s, and its failures counted', (file, runner, totals) => {
    expect(parseTestCounts(recorded(file))).toEqual({ runner, totals });
    expect(countFailures(recorded(file))).toBe(1);
  });

  it('cargo test in colour: every test by name', () => {
    expect(brief(parseCargoTest(stripAnsi(recorded('cargo-color.txt'))))).toEqual([
      'pass src/lib.rs :: tests::adds',
      'skip src/lib.rs :: tests::slow',
      'fail src/lib.rs :: tests::broken',
    ]);
  });

  it('output with no summary it knows gives none', () => {
    expect(parseTestCounts('all good\n')).toBeUndefined();
  });
});

describe('the channels: the gate command stays as written', () => {
  it('adds to the user’s own NODE_OPTIONS, PYTEST_ADDOPTS and GOFLAGS, never replaces them', () => {
    const env = evidenceEnv('/tmp/e', { NODE_OPTIONS: '--max-old-space-size=4096', PYTEST_ADDOPTS: '-x' }, '/r.js');
    expect(env.NODE_OPTIONS).toBe(
      '--max-old-space-size=4096 --test-reporter=spec --test-reporter-destination=stdout ' +
        '--test-reporter=/r.js --test-reporter-destination=/dev/null',
    );
    expect(env.PYTEST_ADDOPTS).toBe('-x --junitxml=/tmp/e/pytest-junit.xml');
    expect(env.GOFLAGS).toBe('-v');
    expect(env.STAR_LOOP_TEST_EVENTS).toBe('/tmp/e/node-tests.jsonl');
  });

  it('leaves NODE_OPTIONS alone when the node on PATH cannot load a reporter', () => {
    const env = evidenceEnv('/tmp/e', {}, undefined);
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(env.STAR_LOOP_TEST_EVENTS).toBeUndefined();
  });
});

describe('cargo test through one log of two streams', () => {
  it('a target header written into a result line, and a verdict pushed to a line of its own, are both read', () => {
    const interleaved = [
      '     Running tests/test_version.rs (target/debug/deps/test_version-c98db94edd7d8bf6)',
      '',
      'running 3 tests',
      'test test_ge ... ok',
      'test test_eq ... ok   Doc-tests semver',
      'test test_gt ...      Running tests/other.rs (target/debug/deps/other-1)',
      'ok',
      'test src/lib.rs - add (line 3) ... ok',
    ].join('\n');
    expect(brief(parseCargoTest(interleaved))).toEqual([
      'pass tests/test_version.rs :: test_ge',
      'pass tests/test_version.rs :: test_eq',
      'pass doc-tests semver :: test_gt',
      'pass tests/other.rs :: src/lib.rs - add (line 3)',
    ]);
  });
});
