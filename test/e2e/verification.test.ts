import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { git } from '../helpers/gitdir.js';
import { sandboxIt } from '../helpers/needs-sandbox.js';
import { agentScriptIn, readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

interface State {
  verifierRuns: number;
  records: Array<{
    verdict: string;
    findings: Array<{ rule: string; detail: string }>;
    verification?: { verifier?: { verdict: string; error?: string; agent: string } };
    claimNotes: string[];
  }>;
}

const SUBTRACT = {
  'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
  'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
};
const claimWork = { write: SUBTRACT, commit: 'feat: subtract', claim: { complete: true, summary: 'subtract done' } };
const prd = prdText([{ id: 'US-001', title: 'Add subtract' }]);

describe('the adversarial verifier and the verification modes', () => {
  it('a verifier reject sends its findings to the next prompt; the fix is accepted; the verifier gets its own role and verdict file', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const agent = await scriptedAgent(aux, {
      steps: [
        claimWork,
        {
          write: { 'src/subtract.js': '// handles negatives too\nexport const subtract = (a, b) => a - b;\n' },
          commit: 'fix',
          claim: { complete: true },
        },
      ],
      verifier: {
        steps: [
          {
            verdict: {
              verdict: 'reject',
              findings: [
                {
                  rule: 'criteria-unmet',
                  file: 'src/subtract.js',
                  line: 1,
                  detail: 'negative results are not covered',
                },
              ],
            },
          },
          { verdict: { verdict: 'accept', findings: [] } },
        ],
      },
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records.map((r) => r.verdict)).toEqual(['rejected', 'accepted']);
    expect(state.records[0]?.findings).toEqual([
      expect.objectContaining({ rule: 'criteria-unmet', detail: 'verifier: negative results are not covered' }),
    ]);
    expect(state.verifierRuns).toBe(2);
    const second = await readFile(join(repo, '.star/runs/0002/prompt.md'), 'utf8');
    expect(second).toContain('[criteria-unmet] src/subtract.js:1 verifier: negative results are not covered');

    const calls = await agent.calls();
    const verifierCall = calls.find((c) => c.role === 'verifier');
    expect(verifierCall?.env).toMatchObject({
      STAR_ROLE: 'verifier',
      STAR_VERDICT_FILE: join(repo, '.star/verdict.json'),
    });
    const verifierPrompt = await readFile(join(repo, '.star/runs/0001/verifier-prompt.md'), 'utf8');
    expect(verifierPrompt).toContain('try to prove that claim wrong');
    // The commits under review: star-loop's own, of the agent's work (the agent is told not to commit).
    expect(verifierPrompt).toContain('star-loop: iteration 1: subtract done');
    expect(verifierPrompt).toContain('`npm test`');
    const verifyJson = await readJson<{ verifier: { verdict: string } }>(join(repo, '.star/runs/0001/verify.json'));
    expect(verifyJson.verifier.verdict).toBe('reject');
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('verifier (command): **reject**');
    expect(report).toMatch(/\| test \| pass \| pass \| ok \|/);
  });

  it.each([
    ['a malformed verdict', { verdict: '{"verdict": "yes"' }, 'the verdict is not valid JSON'],
    ['no verdict at all', {}, 'no verdict file was written'],
    ['a verifier that times out', { sleepMs: 20_000 }, 'the verifier timed out'],
  ])(
    '%s is a reject, never an accept',
    async (_name, step, error) => {
      const { repo, aux } = await calcRepo({ 'prd.json': prd });
      const agent = await scriptedAgent(aux, { steps: [claimWork], repeat: {}, verifier: { repeat: step } });
      await runCli(repo, [
        'run',
        '--prd',
        'prd.json',
        '--agent',
        'command',
        '--agent-cmd',
        agent.cmd,
        '--max-iterations',
        '2',
        '--iteration-timeout',
        '3s',
      ]);
      const state = await readJson<State>(join(repo, '.star/state.json'));
      expect(state.records[0]?.verdict).toBe('rejected');
      expect(state.records[0]?.verification?.verifier).toMatchObject({ verdict: 'reject' });
      expect(state.records[0]?.verification?.verifier?.error).toContain(error);
      expect(JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')).userStories[0].passes).toBe(false);
    },
    60_000,
  );

  it('without the sandbox, a verifier that changes the repository rejects the claim; its change is kept in a commit', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const agent = await scriptedAgent(aux, {
      steps: [claimWork],
      repeat: {},
      verifier: { repeat: { write: { 'src/subtract.js': 'oops\n' }, verdict: { verdict: 'accept', findings: [] } } },
    });
    await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--max-iterations',
      '2',
      '--sandbox',
      'off',
    ]);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records[0]?.verdict).toBe('rejected');
    expect(state.records[0]?.findings.map((f) => f.rule)).toContain('verifier-modified-repo');
    expect(await git(repo, 'log', '-1', '--format=%s')).toBe(
      'star-loop: iteration 1 (changes the verifier made, kept for review)',
    );
  });

  sandboxIt(
    'in the sandbox the verifier works on a throw-away copy of the commit: its writes reach nothing',
    async () => {
      const { repo, aux } = await calcRepo({ 'prd.json': prd });
      const agent = await scriptedAgent(aux, {
        steps: [claimWork],
        verifier: {
          repeat: {
            write: { 'src/subtract.js': 'oops\n', 'scratch.txt': 'made by the verifier\n' },
            verdict: { verdict: 'accept', findings: [] },
          },
        },
      });
      const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
      expect(result.exitCode).toBe(0);
      expect(await readFile(join(repo, 'src/subtract.js'), 'utf8')).toBe(SUBTRACT['src/subtract.js']);
      expect(existsSync(join(repo, 'scratch.txt'))).toBe(false);
      expect(await git(repo, 'status', '--porcelain')).toBe('');
      expect(await git(repo, 'log', '-1', '--format=%s')).toBe('star-loop: US-001 passes (verified in iteration 1)');
    },
  );

  it('--verifier-agent and --verifier-model choose a different verifier (here: Claude Code’s stream-json)', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const implementer = await scriptedAgent(aux, { steps: [claimWork] }, 'implementer');
    const verifier = await scriptedAgent(
      aux,
      {
        format: 'claude-stream-json',
        verifier: { repeat: { verdict: { verdict: 'accept', findings: [] }, final: 'No problems found.' } },
      },
      'verifier',
    );
    const bin = join(aux, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, 'claude'),
      `#!/bin/sh\nexec "${process.execPath}" "${await agentScriptIn(aux)}" "${verifier.file}" "$@"\n`,
    );
    await chmod(join(bin, 'claude'), 0o755);
    const result = await runCli(
      repo,
      [
        'run',
        '--prd',
        'prd.json',
        '--agent',
        'command',
        '--agent-cmd',
        implementer.cmd,
        '--verifier-agent',
        'claude',
        '--verifier-model',
        'judge-model',
      ],
      { PATH: `${bin}:${process.env.PATH}` },
    );
    expect(result.exitCode).toBe(0);
    const [call] = await verifier.calls();
    expect(call?.role).toBe('verifier');
    expect(call?.argv).toEqual(
      expect.arrayContaining(['-p', '--output-format', 'stream-json', '--model', 'judge-model']),
    );
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records[0]?.verification?.verifier).toMatchObject({ agent: 'claude', verdict: 'accept' });
    expect((await implementer.calls()).map((c) => c.role)).toEqual(['implementer']);
  });

  it('--verify off accepts on the agent’s word, and says so loudly at start and in the report', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    // The test gate would fail: nothing checks it.
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: { 'test/broken.test.js': testFor('add', 'add(1, 1)', '3') },
          commit: 'wip',
          claim: { complete: true },
        },
      ],
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--verify',
      'off',
      '--max-iterations',
      '1',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('VERIFICATION IS OFF');
    expect(result.stdout).toContain('Verification: OFF');
    expect(await readFile(join(repo, '.star/report.md'), 'utf8')).toContain('WARNING: verification was off');
    expect((await agent.calls()).map((c) => c.role)).toEqual(['implementer']);
  });

  it('--verify every checks iterations without a claim too, and hands what it finds to the next one (no verifier run)', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: {
            'src/subtract.js': 'export const subtract = (a, b) => a + b;\n',
            'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
          },
          commit: 'wip',
        },
        claimWork,
      ],
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--verify',
      'every',
    ]);
    expect(result.exitCode).toBe(0);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records.map((r) => r.verdict)).toEqual(['no-claim', 'accepted']);
    expect(state.records[0]?.findings.map((f) => f.rule)).toEqual(['gate-failed']);
    expect(state.records[0]?.claimNotes.join(' ')).toContain('--verify every: 1 problem(s) found without a claim');
    expect(state.verifierRuns).toBe(1);
    const second = await readFile(join(repo, '.star/runs/0002/prompt.md'), 'utf8');
    expect(second).toContain('gate "test" (`npm test`) failed');
    expect(second).toContain("star-loop's checks found problems in the work so far");
    expect(second).not.toContain('Your last claim was rejected');
  });

  it('a claim is checked against the baseline: a gate already red before iteration 1 and no worse does not block it', async () => {
    const known =
      "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n\ntest('known bug', () => assert.equal(1, 2));\n";
    const { repo, aux } = await calcRepo({ 'prd.json': prd, 'test/known-bug.test.js': known });
    const agent = await scriptedAgent(aux, { steps: [claimWork] });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('baseline (before iteration 1): test fail (1 failing)');
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('| test | fail (1 failing) | fail (1 failing) | still red (judged test by test) |');
  });

  it('before ending complete, accepted stories are re-checked — a tree already checked is not run again, so a gate that would fail only the second time does not count', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prd });
    const counter = join(aux, 'gate-runs');
    // Passes for the baseline and the claim's verification, would fail once run again.
    await writeFile(
      join(repo, 'star.config.json'),
      JSON.stringify({
        gates: [
          {
            name: 'flaky',
            command: `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n+1)) > ${counter}; test $n -lt 2`,
          },
        ],
      }),
    );
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-qm', 'config');
    const agent = await scriptedAgent(aux, { steps: [claimWork] });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const recheck = await readFile(join(repo, '.star/recheck.log'), 'utf8');
    expect(recheck).toContain('their results are reused, nothing ran');
    expect(recheck).not.toMatch(/^===== gate flaky: /m);
    const report = await readJson<{ stopReason: string; recheck: { findings: unknown[] } }>(
      join(repo, '.star/report.json'),
    );
    expect(report.stopReason).toBe('complete');
    expect(report.recheck.findings).toEqual([]);
  });
});
