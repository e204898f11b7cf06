import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

const PRD = prdText([
  { id: 'US-001', title: 'Subtract' },
  { id: 'US-002', title: 'Multiply', priority: 2, dependsOn: ['US-001'] },
  { id: 'US-003', title: 'Negate', priority: 3 },
]);

describe('one story per loop: prd ready and --story (one CI job per ready story)', () => {
  it('prd ready lists the stories that can start, in order, and what the others wait for', async () => {
    const { repo } = await calcRepo({ 'prd.json': PRD });
    const json = await runCli(repo, ['prd', 'ready', '--json']);
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      ready: [
        { id: 'US-001', title: 'Subtract', priority: 1 },
        { id: 'US-003', title: 'Negate', priority: 3 },
      ],
      blocked: [{ id: 'US-002', waitingFor: ['US-001'] }],
      passed: [],
    });
    expect((await runCli(repo, ['prd', 'ready'])).stdout).toBe(
      'US-001\tSubtract\nUS-003\tNegate\n# US-002 waits for US-001',
    );
  });

  it('--story works on that story alone; a story that is not ready, or unknown, is refused (exit 2)', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const agent = await scriptedAgent(aux, {
      repeat: {
        write: { 'src/negate.js': 'export const negate = (a) => -a;\n' },
        commit: 'negate',
        claim: { complete: true },
      },
    });
    const blocked = await runCli(repo, ['run', '--prd', 'prd.json', '--story', 'US-002', '--agent-cmd', agent.cmd]);
    expect(blocked.exitCode).toBe(2);
    expect(blocked.stderr).toContain('--story US-002 is not ready: it waits for US-001');
    expect(
      (await runCli(repo, ['run', '--prd', 'prd.json', '--story', 'US-999', '--agent-cmd', agent.cmd])).stderr,
    ).toContain('no such story');
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--story', 'US-003', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const report = await readJson<{ accepted: Array<{ story: string }>; remaining: string[] }>(
      join(repo, '.star/report.json'),
    );
    expect(report.accepted.map((a) => a.story)).toEqual(['US-003']);
    expect(report.remaining).toEqual([]);
    const prd = JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')) as {
      userStories: Array<{ id: string; passes: boolean }>;
    };
    expect(prd.userStories.map((s) => [s.id, s.passes])).toEqual([
      ['US-001', false],
      ['US-002', false],
      ['US-003', true],
    ]);
  });
});

describe('one story per iteration, enforced', () => {
  const two = prdText([
    { id: 'US-001', title: 'Subtract' },
    { id: 'US-002', title: 'Negate', priority: 2 },
  ]);
  const subtract = {
    'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
    'test/subtract.test.js':
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { subtract } from " +
      "'../src/subtract.js';\n\ntest('subtract', () => assert.equal(subtract(5, 3), 2));\n",
  };

  it('an agent that flips every story’s passes gets none on that diff; its own story is accepted when claimed alone', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': two });
    const agent = await scriptedAgent(aux, {
      steps: [{ write: subtract, flipPasses: ['US-001', 'US-002'] }, { claim: { complete: true, story: 'US-001' } }],
      repeat: {},
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--max-iterations',
      '4',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
    ]);
    const state = await readJson<{
      records: Array<{ verdict: string; story?: string; findings: Array<{ rule: string; detail: string }> }>;
      accepted: Array<{ story: string }>;
    }>(join(repo, '.star/state.json'));
    expect(state.records[0]?.verdict).toBe('rejected');
    expect(state.records[0]?.findings.map((f) => f.rule)).toContain('other-story');
    expect(state.records[1]?.verdict).toBe('accepted');
    expect(state.accepted.map((a) => a.story)).toEqual(['US-001']);
    const prd = JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')) as {
      userStories: Array<{ passes: boolean }>;
    };
    expect(prd.userStories.map((s) => s.passes)).toEqual([true, false]);
    expect(result.stdout).toContain('one story per iteration');
  });

  it('a claim for another story than the iteration’s is no claim at all', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': two });
    const agent = await scriptedAgent(aux, {
      steps: [{ write: subtract, claim: { complete: true, story: 'US-002' } }],
      repeat: {},
    });
    await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--max-iterations',
      '2',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
    ]);
    const state = await readJson<{ records: Array<{ verdict: string; claimNotes: string[] }>; accepted: unknown[] }>(
      join(repo, '.star/state.json'),
    );
    expect(state.accepted).toEqual([]);
    expect(state.records[0]?.verdict).toBe('no-claim');
    expect(state.records[0]?.claimNotes.join('\n')).toContain(
      'this iteration was given US-001, and it also claimed US-002',
    );
  });
});
