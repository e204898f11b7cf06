import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { fakeClaude, readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

interface Report {
  stopReason: string;
  status: string;
  detail: string;
  iterations: number;
  table: Array<{ hazard?: string }>;
}

const PRD = prdText([{ id: 'US-001', title: 'Subtract' }]);

describe('headless hazards, read from the agent’s structured output, each a named stop', () => {
  it.each([
    [
      'permission-denied',
      { permissionDenials: 3, final: 'I was not allowed to run Bash.' },
      1,
      '3 tool call(s) refused',
    ],
    ['plan-mode', { toolNames: ['ExitPlanMode'], final: 'Here is my plan.' }, 1, 'plan mode'],
    [
      'asked-question',
      { final: 'I looked around.\nShould the result be rounded or truncated?' },
      2,
      'rounded or truncated?',
    ],
    ['no-tool-calls', { toolCalls: 0, final: 'I would subtract the numbers.' }, 2, 'without using a single tool'],
  ])('%s stops the run (exit 4, paused)', async (hazard, step, iterations, detail) => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const agent = await scriptedAgent(aux, { format: 'claude-stream-json', repeat: step });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--stall-after', '2'], {
      PATH: await fakeClaude(aux, agent.file),
    });
    expect(result.exitCode).toBe(4);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: hazard, status: 'paused', iterations });
    expect(report.detail).toContain(detail);
    expect(report.table.every((r) => r.hazard === hazard)).toBe(true);
  });

  it('an agent that fails (non-zero exit) and changes nothing is a plain stall, not a hazard', async () => {
    const { repo } = await calcRepo({ 'prd.json': PRD });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent-cmd',
      'echo "crashed $RANDOM"; exit 1',
      '--stall-after',
      '2',
    ]);
    expect(result.exitCode).toBe(4);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: 'stalled', status: 'paused', iterations: 2 });
    expect(report.table.every((r) => r.hazard === undefined)).toBe(true);
  });

  it('the next fresh agent is told what went wrong: nobody answers its question', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      steps: [{ final: 'Tabs or spaces?' }],
      repeat: {
        write: { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' },
        commit: 'subtract',
        final: 'Done.\n<promise>COMPLETE</promise>',
      },
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json'], { PATH: await fakeClaude(aux, agent.file) });
    expect(result.exitCode).toBe(0);
    const prompt = await readFile(join(repo, '.star/runs/0002/prompt.md'), 'utf8');
    expect(prompt).toContain('The previous agent stopped to ask: "Tabs or spaces?"');
  });
});

describe('breakers on claims and plans', () => {
  it('the same rejected claim made again without any change stops the run as repeated-claim (exit 4)', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const claim = { complete: true, story: 'US-001', summary: 'subtract is done' };
    const agent = await scriptedAgent(aux, {
      steps: [
        { write: { 'src/subtract.js': 'export const subtract = (a, b) => a + b;\n' }, commit: 'subtract', claim },
      ],
      repeat: { claim },
      verifier: {
        repeat: { verdict: { verdict: 'reject', findings: [{ rule: 'criteria-unmet', detail: 'subtract adds' }] } },
      },
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent-cmd', agent.cmd, '--stall-after', '10']);
    expect(result.exitCode).toBe(4);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: 'repeated-claim', iterations: 2 });
    expect(report.detail).toContain('word for word without changing anything');
  });

  it('a plan changed and changed back (A, B, A, B) stops the run as oscillating, though the code moved every time', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      steps: [1, 2, 3, 4].map((i) => ({
        write: {
          '.star/plan.md': i % 2 ? '- [ ] do it the fast way\n' : '- [ ] do it the safe way\n',
          'src/work.js': '// {{call}}\n',
        },
        commit: 'work {{call}}',
      })),
    });
    const result = await runCli(repo, ['run', 'make it fast', '--agent-cmd', agent.cmd, '--stall-after', '10']);
    expect(result.exitCode).toBe(4);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: 'oscillating', iterations: 4 });
    expect(report.detail).toContain('two versions of the plan');
  });
});
