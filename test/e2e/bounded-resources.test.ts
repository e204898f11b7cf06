import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

describe('bounded resources over long runs and loud agents', () => {
  it('the prompt at iteration 50 is no larger than at iteration 10', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      repeat: {
        append: { 'log.txt': 'step {{call}}\n' },
        commit: 'step {{call}}',
        claim: { complete: false, summary: `made one more step of a long task; ${'details '.repeat(30)}` },
      },
    });
    const result = await runCli(repo, [
      'run',
      'a task that never ends',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--max-iterations',
      '51',
      '--stall-after',
      '100',
    ]);
    expect(result.exitCode).toBe(3);
    // 51 with one run kept in reserve for verification: 50 iterations.
    const size = async (n: number) =>
      (await stat(join(repo, `.star/runs/${String(n).padStart(4, '0')}/prompt.md`))).size;
    const [at1, at10, at50] = [await size(1), await size(10), await size(50)];
    expect(at10).toBeGreaterThan(at1); // the journal tail grew at first…
    expect(at50).toBeLessThanOrEqual(at10); // …and then stopped growing.
    const journal = await readFile(join(repo, '.star/journal.md'), 'utf8');
    expect(journal.match(/^## /gm)).toHaveLength(50);
  }, 180_000);

  it('200 MB of agent output: the runner’s memory does not grow with it, and the log keeps 20 MB — its first and last 10', async () => {
    const peakOf = async (repo: string) =>
      (await readJson<{ runner: { peakRssBytes: number } }>(join(repo, '.star/report.json'))).runner.peakRssBytes;
    const flood = async (bytes: number, name: string) => {
      const { repo, aux } = await calcRepo();
      const agent = await scriptedAgent(aux, { repeat: { printBytes: bytes, final: 'done talking' } }, name);
      const result = await runCli(repo, [
        'run',
        'x',
        '--agent',
        'command',
        '--agent-cmd',
        agent.cmd,
        '--max-iterations',
        '2',
      ]);
      expect(result.exitCode).toBe(3);
      return repo;
    };
    const { repo, aux } = await calcRepo();
    const quiet = await scriptedAgent(aux, { repeat: { final: 'nothing to say' } }, 'quiet');
    await runCli(repo, ['run', 'x', '--agent', 'command', '--agent-cmd', quiet.cmd, '--max-iterations', '2']);
    const baseline = await peakOf(repo);

    const halfRepo = await flood(100 * 1024 * 1024, 'half');
    const half = await peakOf(halfRepo);
    const loudRepo = await flood(200 * 1024 * 1024, 'loud');
    const log = join(loudRepo, '.star/runs/0001/agent.log');
    const size = (await stat(log)).size;
    expect(size).toBeGreaterThan(19.9 * 1024 * 1024);
    expect(size).toBeLessThan(21 * 1024 * 1024);
    const text = await readFile(log, 'utf8');
    expect(text).toMatch(
      /\n… \[18\d\.\d MB cut here: star-loop keeps the first and last 10\.0 MB of each process's output\]\n/,
    );
    expect(text).toContain('done talking');
    const peak = await peakOf(loudRepo);
    expect(baseline).toBeGreaterThan(10 * 1024 * 1024);
    // Twice the output, not twice the memory: 100 MB more output moves the peak by what the garbage collector
    // lets lie (14–16 MB measured), far from the 100 MB a runner holding the output would add…
    expect(peak - half).toBeLessThan(25 * 1024 * 1024);
    // …and what a flood costs at all (the log's last 10 MB are held by design, the rest is garbage the
    // collector has not taken yet) is a fraction of the output.
    expect(peak - baseline).toBeLessThan(50 * 1024 * 1024);
    await rm(halfRepo, { recursive: true, force: true });
    await rm(loudRepo, { recursive: true, force: true });
  }, 240_000);
});

describe('bounded .star/runs', () => {
  it('keepRuns: old iteration folders are pruned, the newest and the report’s evidence (accepted claims) stay', async () => {
    const prd = prdText([
      { id: 'US-001', title: 'Subtract' },
      { id: 'US-002', title: 'Negate', priority: 2 },
    ]);
    const { repo, aux } = await calcRepo({
      'prd.json': prd,
      'star.config.json': `${JSON.stringify({ keepRuns: 3 })}\n`,
    });
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: {
            'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
            'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
          },
          claim: { complete: true, story: 'US-001' },
        },
      ],
      repeat: { append: { 'a.txt': 'x\n' } },
    });
    const args = ['run', '--prd', 'prd.json', '--max-iterations', '8', '--on-stall', 'continue'];
    await runCli(repo, [...args, '--agent', 'command', '--agent-cmd', agent.cmd]);
    const state = await readJson<{ lastIteration: number }>(join(repo, '.star/state.json'));
    const last = String(state.lastIteration).padStart(4, '0');
    const left = (await readdir(join(repo, '.star/runs'))).sort();
    expect(state.lastIteration).toBeGreaterThan(4);
    // The accepted claim's folder (its tests.json is pass-to-pass's reference), and the newest three.
    expect(left[0]).toBe('0001');
    expect(left.slice(1)).toHaveLength(3);
    expect(left.at(-1)).toBe(last);
  });
  it('keepRunsMb: past the size bound the oldest folders go, whatever keepRuns allows', async () => {
    const { repo, aux } = await calcRepo({ 'star.config.json': `${JSON.stringify({ keepRunsMb: 3 })}\n` });
    // Each iteration's agent.log holds ~1.2 MB: three fit under 3 MB with the new one to come, not more.
    const agent = await scriptedAgent(aux, { repeat: { printBytes: 1_200_000, append: { 'a.txt': 'x\n' } } });
    const args = ['run', 'x', '--max-iterations', '7', '--on-stall', 'continue'];
    await runCli(repo, [...args, '--agent', 'command', '--agent-cmd', agent.cmd]);
    const state = await readJson<{ lastIteration: number }>(join(repo, '.star/state.json'));
    expect(state.lastIteration).toBeGreaterThan(4);
    const left = (await readdir(join(repo, '.star/runs'))).sort();
    let bytes = 0;
    for (const folder of left) {
      for (const file of await readdir(join(repo, '.star/runs', folder))) {
        bytes += (await stat(join(repo, '.star/runs', folder, file))).size;
      }
    }
    // Pruned before each iteration: the folders kept then (≤ 3 MB) and the newest one.
    expect(left.length).toBeLessThan(5);
    expect(left.at(-1)).toBe(String(state.lastIteration).padStart(4, '0'));
    expect(bytes).toBeLessThan(3 * 1024 * 1024 + 1_500_000);
    expect(bytes).toBeGreaterThan(2_000_000);
  });
});
