import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { onPath } from '../../src/proc/find-executable.js';

describe('onPath: the program a bare name would start, found once', () => {
  it('skips folders without it, files that are not executable and folders of that name; the first hit wins', async () => {
    const root = await mkdtemp(join(tmpdir(), 'star-loop-onpath-'));
    const [none, plain, folder, first, second] = ['none', 'plain', 'folder', 'first', 'second'].map((d) =>
      join(root, d),
    ) as [string, string, string, string, string];
    for (const dir of [none, plain, folder, first, second]) await mkdir(dir);
    await writeFile(join(plain, 'tool'), '#!/bin/sh\necho plain\n'); // not executable
    await mkdir(join(folder, 'tool'));
    for (const [dir, word] of [
      [first, 'first'],
      [second, 'second'],
    ] as const) {
      await writeFile(join(dir, 'tool'), `#!/bin/sh\necho ${word}\n`);
      await chmod(join(dir, 'tool'), 0o755);
    }
    const path = [none, 'relative/ignored', plain, folder, first, second].join(delimiter);
    const found = onPath('tool', path);
    expect(found).toBe(join(first, 'tool'));
    // The same program the shell would start by its bare name.
    expect((await execa('/bin/sh', ['-c', 'tool'], { env: { PATH: path }, extendEnv: false })).stdout).toBe('first');
    // Looked up once per PATH: removed afterwards, it is still the answer (the spawn would then fail).
    await rm(join(first, 'tool'));
    expect(onPath('tool', path)).toBe(join(first, 'tool'));
    expect(onPath('tool', [none, second].join(delimiter))).toBe(join(second, 'tool'));
    expect(onPath('no-such-tool-anywhere', path)).toBe('no-such-tool-anywhere');
  });
});
