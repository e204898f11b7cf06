import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { git, writeFiles } from '../helpers/gitdir.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

describe('prompt mode: a task and the agent-kept plan', () => {
  it('works through .star/plan.md and rejects "complete" while the plan has unticked items', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: {
            '.star/plan.md': '- [x] add greet()\n- [ ] add farewell()\n',
            'src/greet.js': "export const greet = (n) => 'hi ' + n;\n",
          },
          commit: 'feat: greet',
          claim: { complete: false, summary: 'step 1 of 2' },
        },
        // Claims the whole task after one step of two: the plan says otherwise.
        { claim: { complete: true, summary: 'done, I think' } },
        {
          write: {
            '.star/plan.md': '- [x] add greet()\n- [x] add farewell()\n',
            'src/farewell.js': "export const farewell = (n) => 'bye ' + n;\n",
          },
          commit: 'feat: farewell',
          claim: { complete: true, summary: 'both steps done' },
        },
      ],
    });
    const result = await runCli(repo, [
      'run',
      'Add greet() and farewell() helpers',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
    ]);
    expect(result.exitCode).toBe(0);
    const report = await readJson<{
      stopReason: string;
      table: Array<{ verdict: string }>;
      rejected: Array<{ findings: Array<{ rule: string; detail: string }> }>;
      mode: string;
      target: string;
    }>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({
      stopReason: 'complete',
      mode: 'task',
      target: 'Add greet() and farewell() helpers',
    });
    expect(report.table.map((r) => r.verdict)).toEqual(['no-claim', 'rejected', 'accepted']);
    expect(report.rejected[0]?.findings[0]?.rule).toBe('plan-unfinished');
    expect(report.rejected[0]?.findings[0]?.detail).toContain('"add farewell()"');

    const first = await readFile(join(repo, '.star/runs/0001/prompt.md'), 'utf8');
    expect(first).toContain('Add greet() and farewell() helpers');
    expect(first).toContain('There is no plan yet');
    const second = await readFile(join(repo, '.star/runs/0002/prompt.md'), 'utf8');
    expect(second).toContain('- [ ] add farewell()');
    expect(second).toContain('Take the **first unticked item**');
    // The plan lives in .star/, which never shows up as a change in the user's repository.
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    expect(await git(repo, 'log', '--format=%s')).not.toContain('plan.md');
  });

  it('reads the task from --prompt FILE', async () => {
    const { repo, aux } = await calcRepo();
    await writeFiles(aux, { 'PROMPT.md': '# Task\nCreate hello.txt containing hello.\n' });
    const agent = await scriptedAgent(aux, {
      repeat: { write: { 'hello.txt': 'hello\n' }, commit: 'hello', claim: { complete: true } },
    });
    const result = await runCli(repo, [
      'run',
      '--prompt',
      join(aux, 'PROMPT.md'),
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
    ]);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(repo, '.star/runs/0001/prompt.md'), 'utf8')).toContain(
      'Create hello.txt containing hello.',
    );
  });
});
