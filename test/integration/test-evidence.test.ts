import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GatePlace } from '../../src/gates/gate-bench.js';
import { GateCache } from '../../src/gates/gate-cache.js';
import { runGatesOn } from '../../src/gates/run-gates.js';
import { Git } from '../../src/git/git.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import type { TestsFile } from '../../src/state/test-report-schema.js';
import { git, gitdir } from '../helpers/gitdir.js';
import { sandboxIt, sandboxSupport } from '../helpers/needs-sandbox.js';

const NODE_TESTS = `import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { add } from '../src/add.js';

test('adds', () => assert.equal(add(1, 2), 3));
test('not yet', { skip: 'later' }, () => {});
describe('edge cases', () => {
  test('adds zero', () => assert.equal(add(0, 0), 0));
});
`;
const PY_TESTS = `import pytest
from calc import double

def test_double():
    assert double(2) == 4

@pytest.mark.xfail(reason="known")
def test_known():
    assert double(1) == 3
`;

async function project() {
  const repo = await gitdir({
    'package.json': `${JSON.stringify({ name: 'app', type: 'module', scripts: { test: 'node --test' } })}\n`,
    'src/add.js': 'export const add = (a, b) => a + b;\n',
    'test/add.test.js': NODE_TESTS,
    'calc.py': 'def double(x):\n    return x * 2\n',
    'tests/test_calc.py': PY_TESTS,
    'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["."]\n',
  });
  return { repo, head: await git(repo, 'rev-parse', 'HEAD') };
}

function place(repo: string, sandbox?: Sandbox): GatePlace {
  return {
    git: new Git(repo),
    dependencyRoot: repo,
    dependencyDirs: [],
    sandbox,
    hosts: [],
    env: process.env,
    timeoutMs: 60_000,
  };
}

function sandboxFor(repo: string): Sandbox {
  return new Sandbox({
    bwrap: sandboxSupport.bwrap ?? 'bwrap',
    root: repo,
    gitDir: join(repo, '.git'),
    keepReadOnly: [],
    network: 'filtered',
    allowHosts: [],
    allowWrite: [],
    dependencyDirs: [],
    env: process.env,
  });
}

const GATES = [
  { name: 'test', command: 'npm test --silent', kind: 'test' as const, source: 'package.json:1' },
  {
    name: 'pytest',
    command: 'python3 -m pytest -q -p no:cacheprovider',
    kind: 'test' as const,
    source: 'pyproject.toml',
  },
  { name: 'counts', command: 'printf " Tests  3 passed | 1 skipped (4)\\n"', kind: 'test' as const, source: 'x' },
  { name: 'exit', command: 'true', kind: 'other' as const, source: 'x' },
];

const brief = (tests: TestsFile['gates']) =>
  tests.map((g) => ({
    gate: g.name,
    evidence: g.report.evidence,
    runner: g.report.runner,
    tests: g.report.tests?.map((t) => `${t.outcome} ${t.file} :: ${t.name}`),
  }));

const EXPECTED = [
  {
    gate: 'test',
    evidence: 'per-test',
    runner: 'node --test',
    tests: [
      'pass test/add.test.js :: adds',
      'skip test/add.test.js :: not yet',
      'pass test/add.test.js :: edge cases > adds zero',
    ],
  },
  {
    gate: 'pytest',
    evidence: 'per-test',
    runner: 'pytest',
    tests: ['pass tests.test_calc :: test_double', 'todo tests.test_calc :: test_known'],
  },
  { gate: 'counts', evidence: 'counts', runner: 'vitest', tests: undefined },
  { gate: 'exit', evidence: 'exit-code', runner: undefined, tests: undefined },
];

describe('every gate run reports its tests, the gate command as written', () => {
  it('without a sandbox: node’s runner through star-loop’s reporter, pytest through JUnit XML, totals, exit codes', async () => {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-gates.log`);
    const run = await runGatesOn(GATES, { ...place(repo), commit: head, logFile: log });
    expect(run.results.map((r) => r.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(brief(run.tests)).toEqual(EXPECTED);
    expect(run.results[0]?.tests).toEqual({
      evidence: 'per-test',
      runner: 'node --test',
      totals: { pass: 2, fail: 0, skip: 1, todo: 0, cancelled: 0 },
    });
  });

  sandboxIt('in the sandbox: the same evidence, from inside it', async () => {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-gates.log`);
    const run = await runGatesOn(GATES, { ...place(repo, sandboxFor(repo)), commit: head, logFile: log });
    expect(brief(run.tests)).toEqual(EXPECTED);
  });

  it('an overlay lays files over the commit (fail-to-pass: the claim’s tests on its base)', async () => {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-overlay.log`);
    const broken = NODE_TESTS.replace(
      "test('adds', () => assert.equal(add(1, 2), 3));",
      "test('adds', () => assert.equal(add(1, 2), 4));",
    );
    const run = await runGatesOn(GATES.slice(0, 1), {
      ...place(repo),
      commit: head,
      logFile: log,
      overlay: [
        { path: 'test/add.test.js', content: broken },
        { path: 'src/add.js', content: null },
      ],
    });
    expect(run.results[0]?.status).toBe('fail');
    // src/add.js is gone in the copy, so the file fails to load: node reports the file itself as failing.
    expect(run.tests[0]?.report.tests?.map((t) => t.outcome)).toContain('fail');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('a gate that runs node --test twice reports both runs (one events file per runner process)', async () => {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-twice.log`);
    const twice = [
      { name: 'twice', command: 'node --test test/ && node --test test/', kind: 'test' as const, source: 'x' },
    ];
    const run = await runGatesOn(twice, { ...place(repo), commit: head, logFile: log });
    expect(run.tests[0]?.report.evidence).toBe('per-test');
    expect(run.tests[0]?.report.tests?.filter((t) => t.name === 'adds')).toHaveLength(2);
  });

  it('a runner’s stderr and stdout reach the log in the order written (cargo’s headers name each test’s file)', async () => {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-streams.log`);
    // cargo test's shape: the target header on stderr, then that target's results on its test binary's stdout.
    const targets = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const script = targets
      .map((t) => `echo "     Running tests/${t}.rs (target/debug/deps/${t}-1)" >&2; echo "test ${t}_works ... ok"`)
      .join('; ');
    const run = await runGatesOn([{ name: 'cargo', command: script, kind: 'test' as const, source: 'x' }], {
      ...place(repo),
      commit: head,
      logFile: log,
    });
    expect(run.tests[0]?.report.tests?.map((t) => `${t.file} :: ${t.name}`)).toEqual(
      targets.map((t) => `tests/${t}.rs :: ${t}_works`),
    );
  });

  it('colour is off for every gate, even where the project asks for it (pytest addopts --color=yes)', async () => {
    const repo = await gitdir({
      'calc.py': 'def double(x):\n    return x * 2\n',
      'tests/test_calc.py': 'from calc import double\n\ndef test_double():\n    assert double(2) == 5\n',
      'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "--color=yes"\n',
    });
    const head = await git(repo, 'rev-parse', 'HEAD');
    const log = join(repo, '..', `${repo.split('/').at(-1)}-colour.log`);
    const gates = [
      { name: 'pytest', command: 'python3 -m pytest -p no:cacheprovider', kind: 'test' as const, source: 'x' },
      {
        name: 'env',
        command: 'echo "NO_COLOR=$NO_COLOR FORCE_COLOR=$FORCE_COLOR"',
        kind: 'other' as const,
        source: 'x',
      },
    ];
    const run = await runGatesOn(gates, {
      ...place(repo),
      env: { ...process.env, FORCE_COLOR: '1' },
      commit: head,
      logFile: log,
    });
    const text = readFileSync(log, 'utf8');
    expect(text).not.toContain('\x1b[');
    expect(text).toContain('NO_COLOR=1 FORCE_COLOR=0');
    expect(run.results[0]?.tests?.totals).toMatchObject({ fail: 1 });
  });

  it('a tree already checked in this run is not checked again; another run, an overlay, a timeout are', async () => {
    const { repo, head } = await project();
    await git(repo, 'commit', '-q', '--allow-empty', '-m', 'same tree, another commit');
    const second = await git(repo, 'rev-parse', 'HEAD');
    const log = join(repo, '..', `${repo.split('/').at(-1)}-cache.log`);
    const cacheDir = join(repo, '..', `${repo.split('/').at(-1)}-cache`);
    const gates = GATES.slice(0, 1);
    const cache = new GateCache(cacheDir, 'run-1');
    const first = await runGatesOn(gates, { ...place(repo), cache, commit: head, logFile: log });
    expect(first.results[0]?.reused).toBeUndefined();
    const seen: string[] = [];
    const again = await runGatesOn(gates, { ...place(repo), cache, commit: second, logFile: log }, (r) =>
      seen.push(`${r.name} ${r.status} ${r.reused}`),
    );
    expect(again.results.map((r) => [r.status, r.reused])).toEqual([['pass', head]]);
    expect(seen).toEqual([`test pass ${head}`]);
    expect(brief(again.tests)).toEqual(brief(first.tests));
    expect(readFileSync(log, 'utf8')).toContain(`was checked at ${head}, by the same gates in this run`);
    // Another run (its machine may have changed since), or the claim's tests laid over it: run again.
    const other = await runGatesOn(gates, {
      ...place(repo),
      cache: new GateCache(cacheDir, 'run-2'),
      commit: second,
      logFile: log,
    });
    expect(other.results[0]?.reused).toBeUndefined();
    const overlay = await runGatesOn(gates, {
      ...place(repo),
      cache,
      commit: second,
      logFile: log,
      overlay: [{ path: 'notes.txt', content: 'x' }],
    });
    expect(overlay.results[0]?.reused).toBeUndefined();
    // A gate that timed out is tried again next time.
    const slow = [{ name: 'slow', command: 'sleep 5', kind: 'test' as const, source: 'x' }];
    const timedOut = await runGatesOn(slow, { ...place(repo), cache, timeoutMs: 300, commit: head, logFile: log });
    expect(timedOut.results[0]?.status).toBe('timeout');
    const retried = await runGatesOn(slow, { ...place(repo), cache, timeoutMs: 300, commit: head, logFile: log });
    expect(retried.results[0]?.reused).toBeUndefined();
  });

  it('a gate still running says so, every heartbeat', async () => {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-beat.log`);
    const beats: number[] = [];
    const run = await runGatesOn([{ name: 'slow', command: 'sleep 1', kind: 'test' as const, source: 'x' }], {
      ...place(repo),
      commit: head,
      logFile: log,
      heartbeat: (gate, elapsed) => {
        expect(gate.name).toBe('slow');
        beats.push(elapsed);
      },
      heartbeatMs: 200,
    });
    expect(run.results[0]?.status).toBe('pass');
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats).toEqual([...beats].sort((a, b) => a - b));
    const count = beats.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(beats).toHaveLength(count);
  });
});
