import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtectedWalk, protectedChanges, protectedFiles } from '../../src/safety/protected-files.js';

const GLOBS = ['.env*', '.github/workflows/**'];

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-walk-'));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  return dir;
}

describe('the protected files on disk, walked (real folders)', () => {
  it('finds them at any depth, ignored or not, skips .git/.star/node_modules, hashes a symlink by its target and never reads a FIFO', async () => {
    const dir = await tree({
      '.env': 'A=1\n',
      'deep/er/.env.local': 'B=2\n',
      '.github/workflows/ci.yml': 'on: push\n',
      'node_modules/x/.env': 'skipped\n',
      '.star/.env': 'skipped\n',
      'src/app.js': 'x\n',
    });
    await symlink('/etc/hostname', join(dir, 'deep/.env.link'));
    execFileSync('mkfifo', [join(dir, 'deep/.env.fifo')]);
    const found = protectedFiles(dir, GLOBS);
    expect([...found.keys()].sort()).toEqual([
      '.env',
      '.github/workflows/ci.yml',
      'deep/.env.fifo',
      'deep/.env.link',
      'deep/er/.env.local',
    ]);
    await rm(join(dir, 'deep/.env.link'));
    await symlink('/etc/passwd', join(dir, 'deep/.env.link'));
    expect(protectedChanges(found, protectedFiles(dir, GLOBS))).toEqual(['deep/.env.link']);
  });

  it('kept between calls, it sees every change: edits, new files and folders, renames, removals, a folder mtime set back', async () => {
    const dir = await tree({ '.env': 'A=1\n', 'a/b/c/file.txt': 'x\n', 'a/keep.txt': 'k\n' });
    // Folders older than the racy window, so the stamps (not the racy rule) decide what is read again.
    await new Promise((r) => setTimeout(r, 2100));
    const walk = new ProtectedWalk(dir, GLOBS);
    let before = walk.files();
    expect([...before.keys()]).toEqual(['.env']);
    expect(walk.files()).toEqual(before);
    const step = async (change: () => Promise<void>, expected: string[]) => {
      await change();
      const now = walk.files();
      expect(protectedChanges(before, now)).toEqual(expected);
      expect(now).toEqual(protectedFiles(dir, GLOBS)); // the kept walk agrees with a fresh one
      before = now;
    };
    await step(() => writeFile(join(dir, '.env'), 'A=2\n'), ['.env']);
    await step(() => writeFile(join(dir, 'a/b/c/.env.prod'), 'P=1\n'), ['a/b/c/.env.prod']);
    await step(async () => {
      await mkdir(join(dir, 'a/new/.github/workflows'), { recursive: true });
      await writeFile(join(dir, '.github-not'), '');
      await mkdir(join(dir, '.github/workflows'), { recursive: true });
      await writeFile(join(dir, '.github/workflows/evil.yml'), 'run: curl\n');
    }, ['.github/workflows/evil.yml']);
    await step(() => rename(join(dir, 'a/keep.txt'), join(dir, 'a/.env.moved')), ['a/.env.moved']);
    await step(() => rm(join(dir, 'a/b/c/.env.prod')), ['a/b/c/.env.prod']);
    // A file added, then the folder's times put back to the nanosecond: its change time still moved.
    const folder = join(dir, 'a/b');
    const times = join(dir, 'times-of-a-b');
    execFileSync('touch', ['-r', folder, times]);
    await step(async () => {
      await writeFile(join(folder, '.env.hidden'), 'H=1\n');
      execFileSync('touch', ['-r', times, folder]);
      expect((await stat(folder, { bigint: true })).mtimeNs).toBe((await stat(times, { bigint: true })).mtimeNs);
    }, ['a/b/.env.hidden']);
  });
});
