import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

describe('unattended runs: cron, launchd, on-finish', () => {
  it('the printed crontab line, run as cron would (sh, from anywhere), runs the loop in the repository', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      repeat: { write: { 'x.txt': 'x' }, commit: 'x', claim: { complete: true } },
    });
    const printed = await runCli(repo, [
      'schedule',
      '--cron',
      '0 1 * * *',
      '--',
      'make x.txt',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      // The scripted agent keeps its call log beside its scenario, outside the repository.
      '--sandbox-allow-write',
      aux,
    ]);
    expect(printed.exitCode).toBe(0);
    const line = printed.stdout.split('\n')[0] ?? '';
    expect(line.startsWith('0 1 * * * cd ')).toBe(true);
    const command = line.split(' ').slice(5).join(' ');
    await execa('sh', ['-c', command], { cwd: aux, env: {} });
    expect(await readJson<{ stopReason: string }>(join(repo, '.star/report.json'))).toMatchObject({
      stopReason: 'complete',
    });
    expect(await readFile(join(repo, '.star/cron.log'), 'utf8')).toContain('star-loop: complete');
  });

  it('--fleet schedules `star-loop fleet ARGS` instead of `run`', async () => {
    const { repo } = await calcRepo();
    const printed = await runCli(repo, ['schedule', '--cron', '0 1 * * *', '--fleet', '--', '--workers', '3']);
    expect(printed.exitCode).toBe(0);
    expect(printed.stdout.split('\n')[0]).toMatch(/star-loop\.js fleet --workers 3 >> /);
  });

  it('--launchd prints a plist with absolute paths and the calendar interval', async () => {
    const { repo } = await calcRepo();
    const plist = await runCli(repo, ['schedule', '--cron', '30 2 * * *', '--launchd', '--', '--prd', 'prd.json']);
    expect(plist.stdout).toContain(`<key>WorkingDirectory</key><string>${repo}</string>`);
    expect(plist.stdout).toContain('<key>Minute</key><integer>30</integer>');
    expect(plist.stdout).toContain('<key>Hour</key><integer>2</integer>');
    expect(plist.stdout).toContain('<string>--prd</string>');
    const bad = await runCli(repo, ['schedule', '--cron', 'nightly']);
    expect(bad.exitCode).toBe(2);
  });

  it('--on-finish runs a command with the stop reason, exit code and report path in its environment', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, { repeat: {} });
    const out = join(aux, 'notified.txt');
    const result = await runCli(repo, [
      'run',
      'x',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--max-iterations',
      '2',
      '--on-finish',
      `echo "$STAR_STOP_REASON $STAR_EXIT_CODE $STAR_REPORT" > ${out}`,
    ]);
    expect(result.exitCode).toBe(3);
    expect((await readFile(out, 'utf8')).trim()).toBe(`max-iterations 3 ${join(repo, '.star/report.md')}`);
  });
});
