import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
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

  it('a pin read again only when its stamp moved: a same-size rewrite with its times put back is still seen', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const input = { root: dir, gitDir: join(dir, '.git'), starDir: join(dir, '.star') };
    await mkdir(input.starDir, { recursive: true });
    const hook = join(dir, '.git', 'hooks', 'pre-push');
    await writeFile(hook, '#!/bin/sh\nexit 0\n');
    // Just written: never trusted by its stamp (a rewrite in the same clock tick would keep its times).
    const fresh = await takeFingerprints(input);
    await writeFile(hook, '#!/bin/sh\nexit 1\n');
    expect(fingerprintChanges(dir, fresh, await takeFingerprints(input))).toEqual(['.git/hooks/pre-push']);
    // Settled (older than two seconds): taken from its stamp from then on, and still not fooled.
    await new Promise((r) => setTimeout(r, 2100));
    const settled = await takeFingerprints(input);
    expect(fingerprintChanges(dir, settled, await takeFingerprints(input))).toEqual([]);
    const { mtimeNs } = await stat(hook, { bigint: true });
    await writeFile(hook, '#!/bin/sh\nexit 2\n');
    // Its modification time put back to the nanosecond (only its change time tells).
    const at = `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`;
    await execa('touch', ['-m', '-d', at, hook]);
    expect((await stat(hook, { bigint: true })).mtimeNs).toBe(mtimeNs);
    // Looked at again once that rewrite has settled too.
    await new Promise((r) => setTimeout(r, 2100));
    expect(fingerprintChanges(dir, settled, await takeFingerprints(input))).toEqual(['.git/hooks/pre-push']);
  });
});
