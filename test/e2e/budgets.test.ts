import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { fakeClaude, readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

interface Report {
  stopReason: string;
  detail: string;
  iterations: number;
  costUsd?: number;
  usage: {
    costUsd: number;
    costSource: string;
    tokens: number;
    byStory: Record<string, { costUsd: number; tokens: number }>;
  };
  table: Array<{ costUsd?: number; costSource?: string; tokens?: number }>;
}

const PRD = prdText([{ id: 'US-001', title: 'Subtract' }]);
/** An agent that works (a commit per call) but never finishes, so only a budget stops it. */
const WORKING = { append: { 'notes.txt': 'step {{call}}\n' }, commit: 'step {{call}}', final: 'Still working.' };

describe('cost and token budgets, checked before each iteration', () => {
  it('--max-cost stops before an iteration that would not fit (exit 3) and hands Claude Code what is left', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const agent = await scriptedAgent(aux, { format: 'claude-stream-json', repeat: { ...WORKING, costUsd: 0.5 } });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--max-cost', '1.2', '--max-turns', '7'], {
      PATH: await fakeClaude(aux, agent.file),
    });
    expect(result.exitCode).toBe(3);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    // $0.50 + $0.50 spent; a third at $0.50 would pass $1.20, so it never starts.
    expect(report).toMatchObject({ stopReason: 'max-cost', iterations: 2, costUsd: 1 });
    expect(report.detail).toContain('would not fit');
    expect(report.usage).toMatchObject({ costSource: 'reported', tokens: 240 });
    expect(report.usage.byStory['US-001']).toMatchObject({ costUsd: 1, tokens: 240 });
    const argv = (await agent.calls()).map((c) => (c.argv as string[]).join(' '));
    expect(argv[0]).toContain('--max-turns 7 --max-budget-usd 1.2000');
    expect(argv[1]).toContain('--max-budget-usd 0.7000');
  });

  it('--max-tokens counts input and output tokens (exit 3)', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const usage = {
      input_tokens: 1000,
      output_tokens: 200,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const agent = await scriptedAgent(aux, { format: 'claude-stream-json', repeat: { ...WORKING, usage } });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--max-tokens', '3000'], {
      PATH: await fakeClaude(aux, agent.file),
    });
    expect(result.exitCode).toBe(3);
    expect(await readJson<Report>(join(repo, '.star/report.json'))).toMatchObject({
      stopReason: 'max-tokens',
      iterations: 2,
    });
  });

  it('tokens without a cost are priced from the table (star.config.json prices); with no price, --max-cost stops as cost-unknown', async () => {
    const scenario = { format: 'claude-stream-json', repeat: { ...WORKING, noCost: true, model: 'acme-coder-1' } };
    const unpriced = await calcRepo({ 'prd.json': PRD });
    const a = await scriptedAgent(unpriced.aux, scenario);
    const stopped = await runCli(unpriced.repo, ['run', '--prd', 'prd.json', '--max-cost', '1'], {
      PATH: await fakeClaude(unpriced.aux, a.file),
    });
    expect(stopped.exitCode).toBe(4);
    const unknown = await readJson<Report>(join(unpriced.repo, '.star/report.json'));
    expect(unknown).toMatchObject({ stopReason: 'cost-unknown', iterations: 1, usage: { costSource: 'unknown' } });
    expect(unknown.costUsd).toBeUndefined();

    const prices = { prices: { 'acme-coder': { input: 1000, output: 1000 } } };
    const priced = await calcRepo({ 'prd.json': PRD, 'star.config.json': `${JSON.stringify(prices)}\n` });
    const b = await scriptedAgent(priced.aux, scenario);
    const result = await runCli(priced.repo, ['run', '--prd', 'prd.json', '--max-cost', '0.3'], {
      PATH: await fakeClaude(priced.aux, b.file),
    });
    expect(result.exitCode).toBe(3);
    const report = await readJson<Report>(join(priced.repo, '.star/report.json'));
    // 120 tokens at $1000 per million: $0.12 an iteration; two fit in $0.30, a third does not.
    expect(report).toMatchObject({ stopReason: 'max-cost', iterations: 2, usage: { costSource: 'estimated' } });
    expect(report.usage.costUsd).toBeCloseTo(0.24, 6);
    expect(report.table[0]).toMatchObject({ costSource: 'estimated', tokens: 120 });
  });

  it('--max-cost with an agent that reports neither cost nor tokens is refused (exit 2) unless --max-time covers it', async () => {
    const { repo } = await calcRepo({ 'prd.json': PRD });
    const refused = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent-cmd',
      'true',
      '--max-cost',
      '5',
      '--dry-run',
    ]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--max-cost: agent "command" reports no cost and no tokens');
    expect(refused.stderr).toContain('--max-time');
    const covered = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent-cmd',
      'true',
      '--max-cost',
      '5',
      '--max-time',
      '1h',
      '--dry-run',
    ]);
    expect(covered.exitCode).toBe(0);
    expect(covered.stdout).toContain('Budgets: cost $5.00');
  });
});
