import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { fakeClaude, readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

describe('the claude adapter (stream-json), with a scripted stand-in for the model', () => {
  it('reads only result.result: a promise in a prompt echo or an assistant message is not a claim', async () => {
    // A PRD written for another runner, whose description carries the promise tag on a line of its own.
    const prd = prdText([
      {
        id: 'US-001',
        title: 'Add subtract',
        description: 'When everything is done, reply with\n<promise>COMPLETE</promise>',
      },
    ]);
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      steps: [
        {
          echoPrompt: true,
          assistantTexts: ['<promise>COMPLETE</promise>'],
          write: { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' },
          commit: 'wip: subtract',
          final: 'Half way there; tests still to write.',
          costUsd: 0.01,
        },
        { final: 'Subtract is done and tested.\n<promise>COMPLETE</promise>\n', costUsd: 0.02 },
      ],
    });
    const PATH = await fakeClaude(aux, agent.file);
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--model', 'claude-test-model'], {
      PATH,
      IS_SANDBOX: '',
    });
    expect(result.exitCode).toBe(0);
    const report = await readJson<{ table: Array<{ verdict: string; claim?: string[] }>; costUsd: number }>(
      join(repo, '.star/report.json'),
    );
    expect(report.table.map((r) => r.verdict)).toEqual(['no-claim', 'accepted']);
    expect(report.table[1]?.claim).toEqual(['promise']);
    // Two implementer runs and the verifier's run ($0.0123): every agent run is on the receipt.
    expect(report.costUsd).toBeCloseTo(0.0423, 6);

    const calls = await agent.calls();
    expect(calls[0]?.argv).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--model',
      'claude-test-model',
    ]);
    // The prompt went in on stdin.
    expect(calls[0]?.promptBytes).toBeGreaterThan(500);
    if (process.getuid?.() === 0) expect(calls[0]?.env).toMatchObject({ IS_SANDBOX: '1' });
    const state = await readJson<{ records: Array<{ agent: { sessionId?: string } }> }>(join(repo, '.star/state.json'));
    expect(state.records[0]?.agent.sessionId).toBe('sess-scripted');
  });

  it('an API error reported with exit 0 and is_error true is an agent error, never a claim', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'A' }]) });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      repeat: {
        isError: true,
        apiErrorStatus: 400,
        final: 'API Error: 400 invalid request\n<promise>COMPLETE</promise>',
      },
    });
    const PATH = await fakeClaude(aux, agent.file);
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--max-iterations', '2'], { PATH });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain('API status 400');
    const state = await readJson<{ records: Array<{ agent: { isError: boolean; error?: string }; verdict: string }> }>(
      join(repo, '.star/state.json'),
    );
    expect(state.records[0]?.agent.isError).toBe(true);
    expect(state.records[0]?.agent.error).toContain('API status 400');
    // The error result's text is not the agent's answer: the promise in it is no claim.
    expect(state.records[0]?.verdict).toBe('no-claim');
    expect(JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')).userStories[0].passes).toBe(false);
  });
});
