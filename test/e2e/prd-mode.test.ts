import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { git } from '../helpers/gitdir.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

interface ReportJson {
  stopReason: string;
  exitCode: number;
  iterations: number;
  accepted: Array<{ story?: string; iteration: number }>;
  rejected: Array<{ story?: string; iteration: number; findings: Array<{ rule: string; detail: string }> }>;
  remaining: string[];
  runId: string;
  table: Array<{ iteration: number; verdict: string; moved: boolean; claim?: string[] }>;
}

const TWO_STORIES = prdText([
  { id: 'US-001', title: 'Add subtract', priority: 1 },
  { id: 'US-002', title: 'Add multiply', priority: 2, dependsOn: ['US-001'] },
]);

describe('PRD mode, end to end through the built CLI', () => {
  it('runs to completion; star-loop, not the agent, sets passes and keeps the rest of prd.json as it was', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': TWO_STORIES });
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: {
            'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
            'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
          },
          commit: 'feat: subtract',
          claim: { complete: true, story: 'US-001', summary: 'added subtract' },
        },
        {
          // Like agents driven by other runners: flips passes itself and prints the promise.
          write: {
            'src/multiply.js': 'export const multiply = (a, b) => a * b;\n',
            'test/multiply.test.js': testFor('multiply', 'multiply(4, 3)', '12'),
          },
          flipPasses: ['US-002'],
          commit: 'feat: multiply',
          final: 'All done.\n<promise>COMPLETE</promise>',
        },
      ],
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);

    const prd = await readFile(join(repo, 'prd.json'), 'utf8');
    expect(prd).toBe(TWO_STORIES.replaceAll('"passes": false', '"passes": true'));
    const log = await git(repo, 'log', '--format=%s');
    expect(log).toContain('star-loop: US-001 passes (verified in iteration 1)');
    expect(log).toContain('star-loop: iteration 2: restore passes of US-002');
    expect(log).toContain('star-loop: US-002 passes (verified in iteration 2)');
    // The agent's flip was set back before verification: the commit after it holds passes: false.
    const restored = await git(repo, 'show', 'HEAD~1:prd.json');
    expect(JSON.parse(restored).userStories[1].passes).toBe(false);

    const report = await readJson<ReportJson>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: 'complete', exitCode: 0, iterations: 2, remaining: [] });
    expect(report.accepted.map((a) => a.story)).toEqual(['US-001', 'US-002']);
    expect(report.table.map((r) => r.claim)).toEqual([['claim-file'], ['promise', 'passes-flip']]);
    expect(await readFile(join(repo, '.star/report.md'), 'utf8')).toContain('Stop reason: **complete**');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    // Each iteration kept its prompt, the agent's output and the claim as read.
    expect(existsSync(join(repo, '.star/runs/0001/prompt.md'))).toBe(true);
    expect(await readFile(join(repo, '.star/runs/0001/claim.json'), 'utf8')).toContain('"US-001"');
    expect(await readFile(join(repo, '.star/runs/0002/agent.log'), 'utf8')).toContain('<promise>COMPLETE</promise>');
    expect(await readFile(join(repo, '.star/runs/0001/gates.log'), 'utf8')).toContain('===== test: pass');
    const calls = await agent.calls();
    const implementer = calls.filter((c) => c.role === 'implementer');
    expect(implementer.map((c) => (c.env as Record<string, string>).STAR_STORY_ID)).toEqual(['US-001', 'US-002']);
    // Each claim passed its gate, then the adversarial verifier (a fresh process, STAR_ROLE=verifier).
    expect(calls.map((c) => c.role)).toEqual(['implementer', 'verifier', 'implementer', 'verifier']);
    expect(calls[0]?.env).toMatchObject({ STAR_ROLE: 'implementer' });
  });

  it('rejects a claim whose gate fails, hands the failure to the next prompt, and accepts the fix', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Add multiply' }]) });
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: {
            'src/multiply.js': 'export const multiply = (a, b) => Math.abs(a * b);\n',
            'test/multiply.test.js': testFor('multiply', 'multiply(-2, 3)', '-6'),
          },
          commit: 'feat: multiply',
          claim: { complete: true, summary: 'multiply done' },
        },
        {
          write: { 'src/multiply.js': 'export const multiply = (a, b) => a * b;\n' },
          commit: 'fix: multiply keeps the sign',
          claim: { complete: true, summary: 'fixed the sign' },
        },
      ],
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('✘ rejected: gate "test" (`npm test`) failed with exit code 1');

    const report = await readJson<ReportJson>(join(repo, '.star/report.json'));
    expect(report.rejected).toHaveLength(1);
    expect(report.rejected[0]).toMatchObject({ iteration: 1, story: 'US-001' });
    expect(report.rejected[0]?.findings[0]?.rule).toBe('gate-failed');
    expect(report.table.map((r) => r.verdict)).toEqual(['rejected', 'accepted']);

    const secondPrompt = await readFile(join(repo, '.star/runs/0002/prompt.md'), 'utf8');
    expect(secondPrompt).toContain('Your last claim was rejected');
    expect(secondPrompt).toContain('gate "test" (`npm test`) failed with exit code 1');
    // The gate's own output, verbatim: the failing assertion's values.
    expect(secondPrompt).toMatch(/6 !== -6/);
    const firstPrompt = await readFile(join(repo, '.star/runs/0001/prompt.md'), 'utf8');
    expect(firstPrompt).not.toContain('Your last claim was rejected');
  });

  it('pauses with exit 4 after --stall-after iterations without movement, and a later run continues it', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Add subtract' }]) });
    const idle = await scriptedAgent(
      aux,
      { repeat: { final: 'I looked around and will continue next time.' } },
      'idle',
    );
    const first = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      idle.cmd,
      '--stall-after',
      '2',
    ]);
    expect(first.exitCode).toBe(4);
    const paused = await readJson<ReportJson & { status: string }>(join(repo, '.star/report.json'));
    // A stall with a name: the agent exited 0 without a claim or a change.
    expect(paused).toMatchObject({
      stopReason: 'idle-exit',
      exitCode: 4,
      iterations: 2,
      status: 'paused',
      remaining: ['US-001'],
    });
    expect(paused.table.every((r) => !r.moved)).toBe(true);
    const state = await readJson<{ status: string; runId: string }>(join(repo, '.star/state.json'));
    expect(state.status).toBe('paused');

    const worker = await scriptedAgent(
      aux,
      {
        repeat: {
          write: { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' },
          commit: 'feat: subtract',
          claim: { complete: true },
        },
      },
      'worker',
    );
    const second = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      worker.cmd,
      '--stall-after',
      '2',
    ]);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain(`continuing run ${paused.runId}`);
    const done = await readJson<ReportJson>(join(repo, '.star/report.json'));
    expect(done.runId).toBe(paused.runId);
    expect(done.iterations).toBe(3);
    expect(done.table.map((r) => r.iteration)).toEqual([1, 2, 3]);
  });

  it('stops with exit 3 when --max-iterations runs out with work remaining', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'A' },
        { id: 'US-002', title: 'B', priority: 2 },
      ]),
    });
    const busy = await scriptedAgent(aux, {
      repeat: { append: { 'notes.txt': 'call {{call}}\n' }, commit: 'wip {{call}}' },
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      busy.cmd,
      '--max-iterations',
      '3',
    ]);
    expect(result.exitCode).toBe(3);
    const report = await readJson<ReportJson>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({
      stopReason: 'max-iterations',
      exitCode: 3,
      iterations: 2,
      remaining: ['US-001', 'US-002'],
    });
    // The third of three was kept in reserve: a claim in iteration 3 could not have been verified.
    expect((report as unknown as { detail: string }).detail).toContain('1 left, kept in reserve to verify a claim');
    expect((await busy.calls()).length).toBe(2);
  });

  it('never counts a stale claim file left by an earlier iteration or a killed run', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'A' }]) });
    // What a killed run could leave behind: a complete claim for the open story.
    await mkdir(join(repo, '.star'), { recursive: true });
    await writeFile(join(repo, '.star/.gitignore'), '*\n');
    await writeFile(join(repo, '.star/claim.json'), JSON.stringify({ complete: true, story: 'US-001' }));
    const idle = await scriptedAgent(aux, { repeat: {} });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      idle.cmd,
      '--max-iterations',
      '2',
    ]);
    expect(result.exitCode).toBe(3);
    const report = await readJson<ReportJson>(join(repo, '.star/report.json'));
    expect(report.table[0]?.verdict).toBe('no-claim');
    expect(report.accepted).toEqual([]);
    expect(JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')).userStories[0].passes).toBe(false);
  });

  it("commits the agent's uncommitted work so nothing is lost and every iteration starts clean", async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'A' }]) });
    const sloppy = await scriptedAgent(aux, { repeat: { write: { 'src/half-done.js': 'export const x = 1;\n' } } });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      sloppy.cmd,
      '--max-iterations',
      '2',
    ]);
    expect(result.exitCode).toBe(3);
    expect(await git(repo, 'log', '-1', '--format=%s')).toBe("star-loop: iteration 1 (the agent's work)");
    expect(await git(repo, 'show', 'HEAD:src/half-done.js')).toBe('export const x = 1;');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    const report = await readJson<ReportJson>(join(repo, '.star/report.json'));
    expect(report.table[0]?.moved).toBe(true);
  });
});
