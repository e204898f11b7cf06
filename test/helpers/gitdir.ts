import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/** Runs git in `dir` with an isolated config (no signing, no gc, a fixed identity). */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await execa('git', args, { cwd: dir, env: GIT_ENV });
  return stdout.trim();
}

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test User',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test User',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
}

/**
 * A real git repository in a temp folder: `files` committed on `main`, then a work branch checked out
 * (star-loop's loops run on a branch of their own).
 */
export async function gitdir(
  files: Record<string, string> = {},
  options: { branch?: string; commit?: boolean } = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-test-'));
  await git(dir, 'init', '--quiet', '--initial-branch', 'main');
  await git(dir, 'config', 'user.name', 'Test User');
  await git(dir, 'config', 'user.email', 'test@example.invalid');
  await git(dir, 'config', 'commit.gpgsign', 'false');
  await git(dir, 'config', 'gc.auto', '0');
  await writeFiles(dir, files);
  if (options.commit !== false) {
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'initial commit');
    await git(dir, 'switch', '--quiet', '--create', options.branch ?? 'work');
  }
  return dir;
}
