import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

describe('star-loop agents', () => {
  it('lists every adapter with whether its CLI is on PATH, its version, and its capabilities', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'star-agents-'));
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 9.9.9"\n');
    await chmod(join(bin, 'codex'), 0o755);
    const PATH = `${bin}:/usr/bin:/bin`;
    const json = await runCli(dir, ['agents', '--json'], { PATH });
    expect(json.exitCode).toBe(0);
    const { agents } = JSON.parse(json.stdout) as {
      agents: Array<{ name: string; path?: string; version?: string; capabilities: Record<string, boolean> }>;
    };
    expect(agents.map((a) => a.name)).toEqual([
      'claude',
      'codex',
      'gemini',
      'opencode',
      'amp',
      'cursor-agent',
      'grok',
      'aider',
      'command',
      'demo',
    ]);
    const codex = agents.find((a) => a.name === 'codex');
    expect(codex).toMatchObject({
      path: join(bin, 'codex'),
      version: 'codex-cli 9.9.9',
      capabilities: { tokens: true, cost: false },
    });
    expect(agents.find((a) => a.name === 'gemini')?.path).toBeUndefined();
    const text = await runCli(dir, ['agents'], { PATH });
    expect(text.stdout).toContain(`found: ${join(bin, 'codex')} (codex-cli 9.9.9)`);
    expect(text.stdout).toContain('not on PATH (`gemini`)');
    expect(text.stdout).toContain('— cost');
  });
});
