import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { fuzzJson } from '../helpers/fuzz-json.js';
import { runCli, scriptedAgent } from '../helpers/run-cli.js';

/**
 * Fuzzed files through the built CLI and the real loop (issue 18): `validate` and `run --dry-run` on hostile
 * prd.json and star.config.json, and a run whose agent writes hostile claims and whose verifier writes
 * hostile verdicts. No outcome is exit 1 or a stack trace.
 */
const PRD = prdText([
  { id: 'US-001', title: 'Subtract' },
  { id: 'US-002', title: 'Negate', priority: 2 },
]);
const CASES = 8;
const noCrash = (r: { exitCode: number; stdout: string; stderr: string }, what: string) => {
  expect(r.exitCode, `${what}\n${r.stderr.slice(-1500)}`).not.toBe(1);
  expect(`${r.stdout}${r.stderr}`, what).not.toMatch(/internal error|\n\s+at .+:\d+:\d+\)?\n/);
};

const DRY_RUN = ['run', '--prd', 'prd.json', '--dry-run', '--agent', 'command', '--agent-cmd', 'true'];

describe('fuzzed files through the CLI and the loop', () => {
  it('prd.json: validate and run --dry-run say exit 0 or 2, never 1', async () => {
    for (const [i, text] of fuzzJson(JSON.parse(PRD), 18_101, CASES).entries()) {
      const { repo } = await calcRepo({ 'prd.json': text });
      noCrash(await runCli(repo, ['validate', 'prd.json']), `validate case ${i}`);
      const dry = await runCli(repo, DRY_RUN);
      noCrash(dry, `dry-run case ${i}`);
      expect([0, 2], `dry-run case ${i}`).toContain(dry.exitCode);
    }
  });

  it('star.config.json: run --dry-run says exit 0 or 2, never 1', async () => {
    const config = { gates: [{ name: 'test', command: 'npm test' }], maxIterations: 5, verify: 'claims' };
    for (const [i, text] of fuzzJson(config, 18_102, CASES).entries()) {
      const { repo } = await calcRepo({ 'prd.json': PRD, 'star.config.json': text });
      const dry = await runCli(repo, DRY_RUN);
      noCrash(dry, `config case ${i}`);
      expect([0, 2], `config case ${i}`).toContain(dry.exitCode);
    }
  });

  it('hostile claims from the agent and hostile verdicts from the verifier, iteration after iteration', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const claims = fuzzJson({ complete: true, story: 'US-001', summary: 'done' }, 18_103, 6);
    const verdicts = fuzzJson({ verdict: 'accept', findings: [] }, 18_104, 6);
    const work = (i: number) => ({
      [`src/f${i}.js`]: `export const f${i} = (a) => a + ${i};\n`,
      [`test/f${i}.test.js`]: testFor(`f${i}`, `f${i}(1)`, String(1 + i)).replace(
        `'../src/f${i}.js'`,
        `'../src/f${i}.js'`,
      ),
    });
    const agent = await scriptedAgent(aux, {
      steps: claims.map((claim, i) => ({ write: work(i), claim })),
      repeat: {},
      verifier: {
        steps: verdicts.map((verdict) => ({ verdict })),
        repeat: { verdict: { verdict: 'reject', findings: [] } },
      },
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--max-iterations',
      '12',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
    ]);
    noCrash(result, 'the loop');
    expect([0, 3, 4]).toContain(result.exitCode);
  });
});
