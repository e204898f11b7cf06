import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

const prd = prdText([{ id: 'US-001', title: 'Add subtract' }]);
const work = {
  write: {
    'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
    'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
  },
  claim: { complete: true, story: 'US-001' },
};
const config = (gates: Array<{ name: string; command: string }>) => `${JSON.stringify({ gates })}\n`;

describe('gate health: no silent "verified"', () => {
  it('no gate runs tests: the plan’s biggest risk, a warning at start, and "complete — checked by gates that do not test anything"', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prd,
      'star.config.json': config([{ name: 'lint', command: 'node --check src/add.js' }]),
    });
    const dry = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--dry-run',
      '--agent',
      'command',
      '--agent-cmd',
      'true',
    ]);
    expect(dry.stdout).toMatch(/Biggest risk: no gate runs tests \(the gates found only lint\)/);
    expect(dry.stdout).toContain('- lint (lint): `node --check src/add.js`');

    const agent = await scriptedAgent(aux, { steps: [work] });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('no gate runs tests');
    expect(result.stdout).toContain('complete — checked by gates that do not test anything');
    expect(result.stdout).not.toContain('all work complete and verified');
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('**Not verified by tests:** no gate runs tests');
    expect(report).toContain('| lint | lint | pass | yes | `node --check src/add.js` (star.config.json) |');
  });

  it('every test gate red before iteration 1: warned at start, "no signal" in the tables, not "verified"', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prd,
      'star.config.json': config([{ name: 'test', command: 'echo "suite broken on this machine"; exit 3' }]),
    });
    const agent = await scriptedAgent(aux, { steps: [work] });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('every test gate was red or could not run before iteration 1 (test red)');
    expect(result.stdout).toContain('complete — checked by gates that do not test anything');
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('| test | fail | fail | still red — no signal |');
    expect(report).toContain('Biggest risk: every test gate was red or could not run before iteration 1');
  });

  it('a test gate green before iteration 1: "verified", as before', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const agent = await scriptedAgent(aux, { steps: [work] });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('all work complete and verified');
    expect(result.stdout).not.toContain('no gate runs tests');
  });

  it('--require-tests-gate refuses to start (exit 4) with no test gate, and with every test gate red; no agent runs', async () => {
    for (const gates of [[{ name: 'lint', command: 'true' }], [{ name: 'test', command: 'exit 1' }]]) {
      const { repo, aux } = await calcRepo({ 'prd.json': prd, 'star.config.json': config(gates) });
      const agent = await scriptedAgent(aux, { steps: [work] });
      const result = await runCli(repo, [
        'run',
        '--prd',
        'prd.json',
        '--require-tests-gate',
        '--agent',
        'command',
        '--agent-cmd',
        agent.cmd,
      ]);
      expect(result.exitCode).toBe(4);
      expect(result.stdout).toContain('--require-tests-gate refuses to start');
      expect(await agent.calls()).toEqual([]);
      const state = await readJson<{ stopReason: string; testsGap?: string }>(join(repo, '.star/state.json'));
      expect(state.stopReason).toBe('refused');
    }
  });
});
