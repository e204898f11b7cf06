import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { processAlive } from '../helpers/process-alive.js';
import { BIN, readJson, runCli, scriptedAgent, withAgentDirs } from '../helpers/run-cli.js';

interface Report {
  stopReason: string;
  exitCode: number;
  status: string;
  iterations: number;
  table: Array<{ verdict: string; agentError?: string }>;
}

describe('how a run stops', () => {
  it('--on-stall stop ends the run (exit 4, not resumable); --on-stall continue goes on to the next limit', async () => {
    const { repo, aux } = await calcRepo();
    const idle = await scriptedAgent(aux, { repeat: {} });
    const stop = await runCli(repo, [
      'run',
      'x',
      '--agent',
      'command',
      '--agent-cmd',
      idle.cmd,
      '--stall-after',
      '2',
      '--on-stall',
      'stop',
    ]);
    expect(stop.exitCode).toBe(4);
    // The stall has a name: the agent exited 0 twice without a claim or a change.
    expect(await readJson<Report>(join(repo, '.star/report.json'))).toMatchObject({
      stopReason: 'idle-exit',
      status: 'finished',
      iterations: 2,
    });

    const { repo: repo2 } = await calcRepo();
    const cont = await runCli(repo2, [
      'run',
      'x',
      '--agent',
      'command',
      '--agent-cmd',
      idle.cmd,
      '--stall-after',
      '2',
      '--on-stall',
      'continue',
      '--max-iterations',
      '6',
    ]);
    expect(cont.exitCode).toBe(3);
    expect(cont.stdout).toContain('continuing because --on-stall continue');
    expect(await readJson<Report>(join(repo2, '.star/report.json'))).toMatchObject({
      stopReason: 'max-iterations',
      iterations: 5,
    });
  });

  it('--max-time ends a running agent at the limit and stops with exit 3', async () => {
    const { repo, aux } = await calcRepo();
    const slow = await scriptedAgent(aux, { repeat: { sleepMs: 60_000 } });
    const started = Date.now();
    const result = await runCli(repo, ['run', 'x', '--agent', 'command', '--agent-cmd', slow.cmd, '--max-time', '2s']);
    expect(result.exitCode).toBe(3);
    expect(Date.now() - started).toBeLessThan(30_000);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: 'max-time', iterations: 1 });
    expect(report.table[0]?.agentError).toBe('timed out');
  });

  it('--iteration-timeout ends a hanging agent and everything it started; the iteration is recorded as timed out', async () => {
    const { repo, aux } = await calcRepo();
    const pidFile = join(aux, 'child.pid');
    const hang = `sleep 300 & echo $! > ${pidFile}; wait`;
    const result = await runCli(repo, [
      'run',
      'x',
      '--agent-cmd',
      hang,
      '--iteration-timeout',
      '1s',
      '--max-iterations',
      '2',
      // The child's PID as the host sees it (in the sandbox, red-team.test.ts checks the same).
      '--sandbox',
      'off',
    ]);
    expect(result.exitCode).toBe(3);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report.table[0]?.agentError).toBe('timed out');
    expect(processAlive(Number(await readFile(pidFile, 'utf8')))).toBe(false);
  });

  it('--idle-timeout ends an agent that prints nothing for too long', async () => {
    const { repo, aux } = await calcRepo();
    const quiet = await scriptedAgent(aux, { repeat: { sleepMs: 30_000 } });
    const started = Date.now();
    const result = await runCli(repo, [
      'run',
      'x',
      '--agent',
      'command',
      '--agent-cmd',
      quiet.cmd,
      '--idle-timeout',
      '1s',
      '--max-iterations',
      '2',
    ]);
    expect(result.exitCode).toBe(3);
    expect(Date.now() - started).toBeLessThan(20_000);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report.table[0]?.agentError).toBe('idle: no output for 1.0s');
  });

  it('Ctrl-C twice ends the agent’s process group, records everything and exits 6; the next run continues', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'A' }]) });
    const pidFile = join(aux, 'agent.pid');
    const slow = await scriptedAgent(aux, { repeat: {} });
    const child = execa(
      process.execPath,
      // The agent's PID as the host sees it: without the sandbox (red-team.test.ts checks it in the sandbox).
      [
        BIN,
        ...withAgentDirs([
          ...['run', '--prd', 'prd.json', '--agent', 'command', '--sandbox', 'off'],
          ...['--agent-cmd', `echo $$ > ${pidFile}; sleep 60`],
        ]),
      ],
      {
        cwd: repo,
        reject: false,
        env: { NO_COLOR: '1' },
      },
    );
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if ((await readFile(pidFile, 'utf8').catch(() => '')).trim()) break;
    }
    const agentPid = Number(await readFile(pidFile, 'utf8'));
    // Ctrl-C twice: the first asks to stop after the iteration, the second stops at once.
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(6);
    await new Promise((r) => setTimeout(r, 200));
    expect(processAlive(agentPid)).toBe(false);
    const report = await readJson<Report>(join(repo, '.star/report.json'));
    expect(report).toMatchObject({ stopReason: 'stopped', exitCode: 6, status: 'paused', iterations: 1 });

    const again = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      slow.cmd,
      '--max-iterations',
      '3',
    ]);
    expect(again.stdout).toContain('continuing run');
    expect(again.exitCode).toBe(3);
    expect((await readJson<Report>(join(repo, '.star/report.json'))).iterations).toBe(2);
  });

  it('a stop during verification leaves the claim unverified: neither accepted nor held against the agent', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'A' }]),
      // Slow only once the agent's work is there: the baseline before iteration 1 stays quick.
      'star.config.json': JSON.stringify({ gates: [{ name: 'slow', command: 'test ! -f a.txt || sleep 60' }] }),
    });
    const agent = await scriptedAgent(aux, {
      repeat: { write: { 'a.txt': 'a' }, commit: 'a', claim: { complete: true } },
    });
    const child = execa(
      process.execPath,
      [BIN, ...withAgentDirs(['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', agent.cmd])],
      {
        cwd: repo,
        reject: false,
        // execa's own SIGKILL 5 s after a kill() would turn a stop slowed by a loaded machine (its report, the
        // evidence copied) into a death by signal: this test is about what the stop records, not its speed.
        forceKillAfterDelay: 60_000,
      },
    );
    const gatesLog = join(repo, '.star/runs/0001/gates.log');
    // On a loaded machine recon and the baseline can take many seconds: wait for the gate, however long.
    let started = false;
    for (let i = 0; i < 450 && !started; i++) {
      started = (await readFile(gatesLog, 'utf8').catch(() => '')).includes('===== gate slow');
      if (!started) await new Promise((r) => setTimeout(r, 100));
    }
    expect(started).toBe(true);
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(6);
    const state = await readJson<{
      records: Array<{ verdict: string; claimNotes: string[] }>;
      accepted: unknown[];
      pendingFindings: unknown[];
    }>(join(repo, '.star/state.json'));
    expect(state.records[0]?.verdict).toBe('no-claim');
    expect(state.records[0]?.claimNotes).toContain(
      'the claim was not verified: the run was stopped while the gates were running',
    );
    expect(state.accepted).toEqual([]);
    expect(state.pendingFindings).toEqual([]);
    expect(JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')).userStories[0].passes).toBe(false);
  });

  it('a stop during recon ends with exit 6 before anything is opened, not by the signal', async () => {
    const { repo, aux } = await calcRepo({
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    });
    // Recon asks python whether the discovered pytest is importable: a python that says it started, then takes its time.
    const bin = join(aux, 'slow-python');
    await mkdir(bin, { recursive: true });
    const marker = join(aux, 'recon-started');
    const real = (await execa('sh', ['-c', 'command -v python3'])).stdout;
    await writeFile(join(bin, 'python3'), `#!/bin/sh\ntouch '${marker}'\nsleep 2\nexec '${real}' "$@"\n`, {
      mode: 0o755,
    });
    const agent = await scriptedAgent(aux, { repeat: { write: { 'a.txt': 'a' }, commit: 'a' } });
    const child = execa(
      process.execPath,
      [BIN, ...withAgentDirs(['run', 'x', '--agent', 'command', '--agent-cmd', agent.cmd])],
      { cwd: repo, reject: false, env: { PATH: `${bin}:${process.env.PATH}` } },
    );
    let started = false;
    for (let i = 0; i < 450 && !started; i++) {
      started = await stat(marker).then(
        () => true,
        () => false,
      );
      if (!started) await new Promise((r) => setTimeout(r, 100));
    }
    expect(started).toBe(true);
    child.kill('SIGTERM');
    const result = await child;
    expect(result.signal).toBeUndefined();
    expect(result.exitCode).toBe(6);
    expect(result.stdout).toContain('stopped before the run started: nothing was changed');
    // Nothing opened: no run state, no lock, no branch switch, no agent run.
    await expect(stat(join(repo, '.star/state.json'))).rejects.toThrow();
    await expect(stat(join(repo, '.star/lock'))).rejects.toThrow();
    await expect(stat(join(repo, 'a.txt'))).rejects.toThrow();
  });

  it('with no gates, a claim is accepted on its own and the report says it needs review', async () => {
    const { repo, aux } = await calcRepo({ 'package.json': '{"name":"no-gates"}\n' });
    const agent = await scriptedAgent(aux, {
      repeat: { write: { 'a.txt': 'a' }, commit: 'a', claim: { complete: true } },
    });
    const result = await runCli(repo, ['run', 'x', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('no gates to run: accepted on the checks and the verifier alone');
    expect(await readFile(join(repo, '.star/report.md'), 'utf8')).toContain('review this work');
  });

  it('--json prints only JSON events, one per line, and .star/log.jsonl keeps them all', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      repeat: { write: { 'x.txt': 'x' }, commit: 'x', claim: { complete: true } },
    });
    const result = await runCli(repo, ['run', 'make x.txt', '--json', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; time: string });
    expect(events.map((e) => e.type)).toEqual([
      'run.started',
      'baseline.finished',
      'iteration.started',
      'agent.finished',
      // The agent does not commit (in the sandbox it cannot): star-loop commits its work from the files.
      'work.committed',
      'claim.read',
      'gate.finished',
      'verifier.started',
      'verifier.finished',
      'claim.verdict',
      'iteration.finished',
      'run.finished',
    ]);
    expect(events.every((e) => !Number.isNaN(Date.parse(e.time)))).toBe(true);
    const log = (await readFile(join(repo, '.star/log.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; level: number });
    expect(log.map((l) => l.event)).toEqual(events.map((e) => e.type));
  });

  it('gives the command agent its contract: prompt on stdin, STAR_* environment, run in the repository root', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'A' }]) });
    const agent = await scriptedAgent(aux, { repeat: {} });
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
    ]);
    const [call] = await agent.calls();
    const env = call?.env as Record<string, string>;
    expect(env).toMatchObject({
      STAR_ITERATION: '1',
      STAR_STORY_ID: 'US-001',
      STAR_ROLE: 'implementer',
      STAR_CLAIM_FILE: join(repo, '.star/claim.json'),
      STAR_RUN_DIR: join(repo, '.star/runs/0001'),
    });
    expect(call?.cwd).toBe(repo);
    expect(call?.promptBytes).toBe(Buffer.byteLength(await readFile(join(repo, '.star/runs/0001/prompt.md'))));
  });
});
