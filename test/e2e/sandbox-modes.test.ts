import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { sandboxIt } from '../helpers/needs-sandbox.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

/** A PATH with git and node only: a machine without bubblewrap. */
async function pathWithoutBwrap(): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), 'star-loop-nobwrap-'));
  for (const tool of ['git', 'node', 'sh']) {
    const found = (await execa('sh', ['-c', `command -v ${tool}`])).stdout.trim();
    await symlink(found, join(bin, tool));
  }
  return bin;
}

describe('star-loop doctor and --sandbox auto|required|off', () => {
  sandboxIt('doctor: every boundary enforced here, and what a sandboxed process costs (exit 0)', async () => {
    const { repo } = await calcRepo();
    const text = await runCli(repo, ['doctor']);
    expect(text.exitCode).toBe(0);
    for (const boundary of ['processes', 'files', 'credentials', 'network', 'gates'])
      expect(text.stdout).toMatch(new RegExp(`${boundary}\\s+enforced`));
    const json = JSON.parse((await runCli(repo, ['doctor', '--json'])).stdout) as {
      ok: boolean;
      startMs: number;
      boundaries: Array<{ enforced: boolean }>;
    };
    expect(json.ok).toBe(true);
    expect(json.boundaries.every((b) => b.enforced)).toBe(true);
    expect(json.startMs).toBeGreaterThan(0);
  });

  it('without bubblewrap: doctor says why (exit 4), auto warns loudly and runs, required refuses (exit 4)', async () => {
    const { repo, aux } = await calcRepo();
    const PATH = await pathWithoutBwrap();
    const doctor = await runCli(repo, ['doctor'], { PATH });
    expect(doctor.exitCode).toBe(4);
    expect(doctor.stdout).toContain('bubblewrap (bwrap) is not on PATH');
    expect(doctor.stdout).toMatch(/processes\s+NOT ENFORCED/);

    const agent = await scriptedAgent(aux, { repeat: { write: { 'x.txt': 'x\n' }, claim: { complete: true } } });
    const required = await runCli(repo, ['run', 'make x', '--agent-cmd', agent.cmd, '--sandbox', 'required'], {
      PATH,
    });
    expect(required.exitCode).toBe(4);
    expect(required.stderr).toContain('--sandbox required, but no sandbox can be had here');
    expect(required.stderr).toContain('install bubblewrap and socat');

    const auto = await runCli(repo, ['run', 'make x', '--agent-cmd', agent.cmd], { PATH });
    expect(auto.stdout).toContain('Sandbox (--sandbox auto): NOT AVAILABLE');
    expect(auto.stdout).toContain('NO SANDBOX: bubblewrap (bwrap) is not on PATH');
    expect(auto.stdout).toContain('Not contained — git history and refs');
    const report = await readJson<{ plan: { sandbox: { active: boolean } } }>(join(repo, '.star/report.json'));
    expect(report.plan.sandbox.active).toBe(false);
    const markdown = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(markdown).toContain('**WARNING: NO SANDBOX: bubblewrap (bwrap) is not on PATH');
  });

  sandboxIt('the plan says the sandbox is on; --sandbox off says what is not contained', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {});
    const on = await runCli(repo, ['run', 'x', '--dry-run', '--agent-cmd', agent.cmd]);
    expect(on.stdout).toContain('Sandbox (--sandbox auto): on: bubblewrap');
    const off = await runCli(repo, ['run', 'x', '--dry-run', '--agent-cmd', agent.cmd, '--sandbox', 'off']);
    expect(off.stdout).toContain('Sandbox (--sandbox off): OFF');
    expect(off.stdout).toContain('SANDBOX OFF (--sandbox off): not contained');
  });

  it('a bad --sandbox value or allowed host is a usage error (exit 2) naming the fix', async () => {
    const { repo } = await calcRepo();
    const bad = await runCli(repo, ['run', 'x', '--agent-cmd', 'true', '--sandbox', 'maybe']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("argument 'maybe' is invalid");
    const host = await runCli(repo, ['run', 'x', '--agent-cmd', 'true', '--sandbox-allow-host', 'not a host']);
    expect(host.exitCode).toBe(2);
    expect(host.stderr).toContain('--sandbox-allow-host');
  });
});
