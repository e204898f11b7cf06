import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

/** A runner that prints only Jest-style totals: one "test" per test file. */
const JEST_LIKE = 'n=$(ls test/*.test.js | wc -l)\necho "Tests:       $n passed, $n total"\n';
const CONFIG = {
  gates: [
    { name: 'unit', command: 'npm test' },
    { name: 'jest-like', command: 'sh scripts/jest-like.sh' },
    { name: 'lint', command: 'node -e 0' },
  ],
};

interface State {
  records: Array<{
    verdict: string;
    findings: Array<{ rule: string; detail: string }>;
    verification?: { tests?: { failToPass?: { ran: boolean; flipped?: string[] }; mutants?: { ran: boolean } } };
  }>;
}

async function project() {
  return calcRepo({
    'prd.json': prdText([{ id: 'US-001', title: 'Add subtract' }]),
    'star.config.json': `${JSON.stringify(CONFIG)}\n`,
    'scripts/jest-like.sh': JEST_LIKE,
    'test/more.test.js':
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/add.js';\n\ntest('adds ones', () => assert.equal(add(1, 1), 2));\n",
  });
}
const run = (repo: string, cmd: string) =>
  runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', cmd, '--max-iterations', '2']);

describe('which gates give every test, which only totals or an exit code — said, and used', () => {
  it('the baseline line and the report say it per gate; an honest claim is judged test by test and accepted', async () => {
    const { repo, aux } = await project();
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: {
            'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
            'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
          },
          claim: { complete: true, story: 'US-001' },
        },
      ],
    });
    const result = await run(repo, agent.cmd);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('unit pass — 2 tests by name (node --test)');
    expect(result.stdout).toContain('jest-like pass — totals only (jest)');
    expect(result.stdout).toContain('lint pass — exit code only');
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('every test by name (node --test): 3 passed, 0 failed');
    expect(report).toContain('totals only (jest): 3 passed, 0 failed');
    expect(report).toContain('exit code only (no test results could be read)');
    expect(report).toMatch(/fail-to-pass: 1 test of the claim's 1 new or changed test fail without its source change/);
    expect(report).toMatch(/mutants of the claimed lines: [1-9]\d* killed/);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records[0]?.verification?.tests?.failToPass?.flipped).toEqual(['subtract']);
    const tests = await readJson<{ gates: Array<{ name: string; report: { evidence: string } }> }>(
      join(repo, '.star/runs/0001/tests.json'),
    );
    expect(tests.gates.map((g) => `${g.name}: ${g.report.evidence}`)).toEqual([
      'unit: per-test',
      'jest-like: counts',
      'lint: exit-code',
    ]);
  });

  it('where a runner gives totals only, fewer tests run than before is the finding', async () => {
    const { repo, aux } = await project();
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' },
          delete: ['test/more.test.js'],
          claim: { complete: true, story: 'US-001' },
        },
      ],
    });
    await run(repo, agent.cmd);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    const first = state.records[0];
    expect(first?.verdict).toBe('rejected');
    const rules = first?.findings.map((f) => f.rule);
    // The totals-only runner can only say that fewer tests ran; node's runner names the one that is gone.
    expect(first?.findings.find((f) => f.rule === 'tests-fewer')?.detail).toContain(
      'ran 1 test to a verdict; 2 before (jest reports totals only',
    );
    expect(first?.findings.find((f) => f.rule === 'test-gone')?.detail).toContain('"adds ones" (test/more.test.js)');
    // Not every test gate names its tests, so the diff's pattern stays as a hint beside them.
    expect(rules).toContain('test-file-removed');
  });

  it('a claim with no test of its own: recorded as no new test evidence, with the surviving mutants; --require-tests rejects it', async () => {
    const work = {
      write: { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' },
      claim: { complete: true, story: 'US-001' },
    };
    const { repo, aux } = await project();
    const agent = await scriptedAgent(aux, { steps: [work] });
    expect((await run(repo, agent.cmd)).exitCode).toBe(0);
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('fail-to-pass: not run — no new test evidence: the claim adds or changes no test');
    expect(report).toContain('0 killed');
    expect(report).toContain('recorded, not held against the claim (it adds no test; --require-tests would)');

    const strict = await project();
    const again = await scriptedAgent(strict.aux, { steps: [work] });
    await runCli(strict.repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      again.cmd,
      '--max-iterations',
      '2',
      '--require-tests',
    ]);
    const state = await readJson<State>(join(strict.repo, '.star/state.json'));
    expect(state.records[0]?.verdict).toBe('rejected');
    expect(state.records[0]?.findings.map((f) => f.rule)).toEqual(['no-new-tests']);
  });
});
