import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../dist/demo/run-demo.js', import.meta.url));

describe('npm run demo', () => {
  it('runs the real loop on a sample repository: one claim rejected by a failing gate, fixed, all stories verified', async () => {
    const result = await execa(process.execPath, [DEMO], { reject: false, env: { NO_COLOR: '1' } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('SCRIPTED DEMO AGENT');
    expect(result.stdout).toContain('Gates (run by star-loop on every claim):');
    expect(result.stdout).toContain('✘ rejected: gate "test" (`npm test`) failed with exit code 1');
    expect(result.stdout).toContain('✔ accepted: US-002 passes');
    expect(result.stdout).toContain('set passes of US-003 back');
    expect(result.stdout).toContain('star-loop: complete — all work complete and verified (exit 0)');
    expect(result.stdout).toContain('# star-loop report — complete');
  });
});
