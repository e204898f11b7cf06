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
