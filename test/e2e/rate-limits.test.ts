import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { BIN, fakeClaude, readJson, runCli, scriptedAgent, withAgentDirs } from '../helpers/run-cli.js';

interface State {
  runId: string;
  status: string;
  stopReason: string;
  storyFailures: Record<string, number>;
  errorStreak?: unknown;
  stallStreak: number;
  records: Array<{
    story?: string;
    stall: boolean;
    verdict: string;
    agent: {
      name?: string;
      attempts?: number;
      waitedMs?: number;
      rateLimited?: boolean;
      isError: boolean;
      error?: string;
    };
  }>;
}

const SUBTRACT = { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' };
// Short backoff for tests: the defaults (30s, doubling up to 15m) are for real providers.
const FAST_BACKOFF = `${JSON.stringify({ backoff: { initial: '200ms', max: '1s' } })}\n`;

async function events(repo: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(join(repo, '.star/log.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('rate limits and overloads are waited out, not counted against the agent', () => {
  it('429 then 529 from the structured output: backoff, a third attempt in the same iteration, no failure and no stall', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]),
      'star.config.json': FAST_BACKOFF,
    });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      steps: [
        { rateLimited: { status: 429 }, final: 'API Error: Request rejected (429) · rate limited' },
        { rateLimited: { status: 529 }, final: 'API Error: 529 overloaded' },
        { write: SUBTRACT, commit: 'subtract', final: 'Done.\n<promise>COMPLETE</promise>' },
      ],
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json'], { PATH: await fakeClaude(aux, agent.file) });
    expect(result.exitCode).toBe(0);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records).toHaveLength(1);
    expect(state.records[0]).toMatchObject({
      verdict: 'accepted',
      stall: false,
      agent: { attempts: 3, isError: false },
    });
    expect(state.records[0]?.agent.waitedMs).toBeGreaterThanOrEqual(200);
    expect(state.storyFailures).toEqual({});
    expect(state.errorStreak).toBeUndefined();
    const limited = (await events(repo)).filter((e) => e.event === 'agent.rate-limited');
    expect(limited.map((e) => e.detail)).toEqual([
      expect.stringContaining('rate-limit (HTTP 429)'),
      expect.stringContaining('overloaded (HTTP 529)'),
    ]);
    // Every attempt keeps its own log.
    for (const log of ['agent.log', 'agent.2.log', 'agent.3.log'])
      expect(existsSync(join(repo, '.star/runs/0001', log))).toBe(true);
    expect(result.stdout).toContain('claude is rate-limited');
    // The agent's activity, summarised from its structured output.
    expect(result.stdout).toMatch(/agent \(claude, attempt 3\) finished in [\d.]+m?s, 1 tool call\b/);
  });

  it('a reset time is honoured; one beyond --max-wait pauses the run (exit 3), and resume finishes it with the same run id', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]) });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      steps: [
        { rateLimited: { resetInSec: 2 }, final: "You've hit your limit" },
        { rateLimited: { resetInSec: 3600 }, final: "You've hit your limit" },
      ],
      repeat: { write: SUBTRACT, commit: 'subtract', final: 'Done.\n<promise>COMPLETE</promise>' },
    });
    const PATH = await fakeClaude(aux, agent.file);
    const first = await runCli(repo, ['run', '--prd', 'prd.json', '--max-wait', '30s'], { PATH });
    expect(first.exitCode).toBe(3);
    const paused = await readJson<State>(join(repo, '.star/state.json'));
    expect(paused).toMatchObject({ status: 'paused', stopReason: 'rate-limited', stallStreak: 0 });
    expect(paused.records[0]?.agent).toMatchObject({ attempts: 2, rateLimited: true });
    // The first reset (one to two seconds away: resetsAt is in whole seconds) was waited for.
    expect(paused.records[0]?.agent.waitedMs).toBeGreaterThanOrEqual(900);
    expect(paused.records[0]?.stall).toBe(false);
    const limited = (await events(repo)).filter((e) => e.event === 'agent.rate-limited');
    expect(limited[0]?.resetAt).toEqual(expect.any(String));

    const resumed = await runCli(repo, ['resume'], { PATH });
    expect(resumed.exitCode).toBe(0);
    const done = await readJson<State>(join(repo, '.star/state.json'));
    expect(done.runId).toBe(paused.runId);
    expect(done.records.map((r) => r.verdict)).toEqual(['no-claim', 'accepted']);
  });

  it('--fallback-agent runs while the primary is limited, and the primary again once its limit has passed', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Subtract' },
        { id: 'US-002', title: 'Multiply', priority: 2 },
      ]),
    });
    const primary = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      steps: [{ rateLimited: { resetInSec: 2 }, final: "You've hit your limit" }],
      repeat: {
        write: { 'src/multiply.js': 'export const multiply = (a, b) => a * b;\n' },
        commit: 'multiply',
        final: 'Done.\n<promise>COMPLETE</promise>',
      },
    });
    // The stand-in is slow enough for the primary's limit to pass before the next iteration.
    const fallback = await scriptedAgent(
      aux,
      { steps: [{ sleepMs: 2500, write: SUBTRACT, commit: 'subtract', claim: { complete: true, story: 'US-001' } }] },
      'fallback',
    );
    const result = await runCli(
      repo,
      ['run', '--prd', 'prd.json', '--agent', 'claude', '--fallback-agent', 'command', '--agent-cmd', fallback.cmd],
      { PATH: await fakeClaude(aux, primary.file) },
    );
    expect(result.exitCode).toBe(0);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records.map((r) => [r.story, r.agent.name, r.verdict])).toEqual([
      ['US-001', 'command', 'accepted'],
      ['US-002', 'claude', 'accepted'],
    ]);
    expect(state.records[0]?.agent.attempts).toBe(2);
    expect(result.stdout).toContain('switching to command');
  }, 60_000);

  it('a command agent says "rate limited" with exit 75 (EX_TEMPFAIL): waited out like any other', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]),
      'star.config.json': FAST_BACKOFF,
    });
    const agent = await scriptedAgent(aux, {
      steps: [{ exit: 75 }],
      repeat: { write: SUBTRACT, commit: 'subtract', claim: { complete: true, story: 'US-001' } },
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records[0]).toMatchObject({ verdict: 'accepted', agent: { attempts: 2, isError: false } });
  });

  it('`star-loop stop` ends a wait at once: exit 6, the run resumable, the iteration not held against the agent', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]) });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      repeat: { rateLimited: { resetInSec: 3000 }, final: "You've hit your limit" },
    });
    const run = execa(process.execPath, [BIN, ...withAgentDirs(['run', '--prd', 'prd.json', '--max-wait', '2h'])], {
      cwd: repo,
      env: { PATH: await fakeClaude(aux, agent.file) },
      reject: false,
    });
    for (let waited = 0; waited < 15_000; waited += 100) {
      const status = await runCli(repo, ['status', '--json']).catch(() => undefined);
      if (status?.stdout.includes('waitingUntil')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const started = Date.now();
    await runCli(repo, ['stop']);
    expect((await run).exitCode).toBe(6);
    expect(Date.now() - started).toBeLessThan(10_000);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state).toMatchObject({ status: 'paused', stopReason: 'stopped', stallStreak: 0 });
    expect(state.records[0]?.agent.error).toContain('stopped while waiting out');
  }, 60_000);

  it('a verifier that stays rate-limited leaves the claim unverified — not rejected — and pauses the run', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]) });
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      repeat: { write: SUBTRACT, commit: 'subtract', final: 'Done.\n<promise>COMPLETE</promise>' },
      verifier: { repeat: { rateLimited: { resetInSec: 3600 }, final: "You've hit your limit" } },
    });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--max-wait', '1s'], {
      PATH: await fakeClaude(aux, agent.file),
    });
    expect(result.exitCode).toBe(3);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state).toMatchObject({ status: 'paused', stopReason: 'rate-limited', storyFailures: {} });
    expect(state.records[0]).toMatchObject({ verdict: 'no-claim', stall: false });
    expect(result.stdout).toContain('the claim was not verified: the verifier was rate-limited');
  });
});
