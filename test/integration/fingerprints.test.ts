import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintChanges, takeFingerprints } from '../../src/safety/fingerprints.js';
import { git, gitdir } from '../helpers/gitdir.js';

describe('pinned files, on a real repository', () => {
  it('git’s own maintenance (gc → repack → update-server-info) is not a change; an edit to info/exclude is', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const input = { root: dir, gitDir: join(dir, '.git'), starDir: join(dir, '.star') };
    await mkdir(input.starDir, { recursive: true });
    await mkdir(join(dir, '.git', 'info'), { recursive: true });
    await writeFile(join(dir, '.git', 'info', 'exclude'), '# nothing\n');
    const before = await takeFingerprints(input);
    // What an automatic gc does after an agent's commit: pack, prune, write info/refs and objects/info/packs.
    await git(dir, 'gc', '--quiet');
    await git(dir, 'update-server-info');
    expect(fingerprintChanges(dir, before, await takeFingerprints(input))).toEqual([]);
    await writeFile(join(dir, '.git', 'info', 'exclude'), 'src/\n');
    expect(fingerprintChanges(dir, before, await takeFingerprints(input))).toEqual(['.git/info/exclude']);
  });
});
