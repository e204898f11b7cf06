import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderEventLine } from '../../src/report/render-event-line.js';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { runCli, scriptedAgent } from '../helpers/run-cli.js';

const prd = prdText([{ id: 'US-001', title: 'Add subtract' }]);
const work = {
  write: {
    'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
    'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
  },
  claim: { complete: true, story: 'US-001' },
};
const gateRuns = (log: string) => log.split('\n').filter((l) => l.startsWith('===== gate test: ')).length;

describe('no work twice', () => {
  it('the final re-check of the last accepted claim reuses its gate results: the suite runs once per claim', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const agent = await scriptedAgent(aux, { steps: [work] });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const star = join(repo, '.star');
    const [baseline, claim, recheck] = await Promise.all(
      ['baseline.log', 'runs/0001/gates.log', 'recheck.log'].map((f) => readFile(join(star, f), 'utf8')),
    );
    expect([baseline, claim, recheck].map((log) => gateRuns(log ?? ''))).toEqual([1, 1, 0]);
    expect(recheck).toContain('by the same gates in this run: their results are reused, nothing ran');
  });

  it('a gate running longer than 15 s says so in non-TTY output (cron, CI), not silence', async () => {
    const { repo, aux } = await calcRepo({
      'star.config.json': `${JSON.stringify({ gates: [{ name: 'slow', command: 'sleep 16; node --test' }] })}\n`,
    });
    const agent = await scriptedAgent(aux, { steps: [{ write: { 'notes.md': 'x\n' } }], repeat: {} });
    const result = await runCli(repo, [
      'run',
      '--max-iterations',
      '2',
      '--branch',
      'work',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      'a task',
    ]);
    expect(result.stdout, result.stderr).toMatch(/gate slow: still running \(15\.\ds\)/);
    expect(result.stdout.indexOf('still running')).toBeLessThan(result.stdout.indexOf('baseline (before iteration 1)'));
  });

  it('a gate still running and a gate reused are said in the terminal’s lines', () => {
    const at = '2026-11-30T20:00:00.000Z';
    expect(
      renderEventLine({ type: 'gate.running', gate: 'test', command: 'npm test', elapsedMs: 45_000, time: at }),
    ).toBe('    gate test: still running (45.0s)');
    const result = {
      name: 'test',
      command: 'npm test',
      status: 'pass' as const,
      durationMs: 10,
      reused: 'abcdef1234567',
    };
    expect(renderEventLine({ type: 'gate.finished', iteration: 2, result, time: at })).toContain(
      'reused: this tree was checked at abcdef1234',
    );
  });
});
