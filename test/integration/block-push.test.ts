import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { pushBlockingEnv, writePushBlockingHooks } from '../../src/safety/block-push.js';
import { git, gitdir } from '../helpers/gitdir.js';

describe("the agent's hooks: the project's own run, a push is refused (real git)", () => {
  it("wraps only the hooks the repository has; a commit runs them, a push is refused; a run's old wrappers go", async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const original = join(dir, '.git/hooks');
    await mkdir(original, { recursive: true });
    await writeFile(
      join(original, 'pre-commit'),
      '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/ran-pre-commit"\n',
      {
        mode: 0o755,
      },
    );
    // Not executable: git would not run it, so it gets no wrapper.
    await writeFile(join(original, 'commit-msg'), '#!/bin/sh\nexit 1\n', { mode: 0o644 });
    const hooks = join(dir, '.star/hooks');
    await mkdir(hooks, { recursive: true });
    await writeFile(join(hooks, 'post-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });

    await writePushBlockingHooks(hooks, original);
    expect((await readdir(hooks)).sort()).toEqual(['pre-commit', 'pre-push']);

    const env = { ...process.env, ...pushBlockingEnv(process.env, hooks) };
    await writeFile(join(dir, 'b.txt'), 'b\n');
    await git(dir, 'add', 'b.txt');
    await execa('git', ['-c', 'user.name=a', '-c', 'user.email=a@b.c', 'commit', '-qm', 'b'], { cwd: dir, env });
    expect(existsSync(join(dir, 'ran-pre-commit'))).toBe(true);

    // A push past the hook (--no-verify) to a path: its URL is rewritten to a scheme no git speaks.
    const remote = join(dir, 'remote.git');
    await execa('git', ['init', '-q', '--bare', remote]);
    const unverified = await execa('git', ['push', '--no-verify', remote, 'HEAD:refs/heads/x'], {
      cwd: dir,
      env,
      reject: false,
    });
    expect(unverified.exitCode).not.toBe(0);
    // A URL no rewrite covers (a bare relative name): the pre-push hook refuses it.
    const hooked = await execa('git', ['push', 'remote.git', 'HEAD:refs/heads/x'], { cwd: dir, env, reject: false });
    expect(hooked.exitCode).not.toBe(0);
    expect(hooked.stderr).toContain('git push is blocked while a loop runs');
    expect(await git(remote, 'for-each-ref')).toBe('');
  });

  it('makes every hook executable whatever the umask: git skips a hook that is not, and would let a push by', async () => {
    const dir = await gitdir({ 'a.txt': 'a\n' });
    const original = join(dir, '.git/hooks');
    await mkdir(original, { recursive: true });
    await writeFile(join(original, 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const hooks = join(dir, '.star/hooks');
    const before = process.umask(0o177);
    try {
      await writePushBlockingHooks(hooks, original);
    } finally {
      process.umask(before);
    }
    for (const name of ['pre-commit', 'pre-push']) expect((await stat(join(hooks, name))).mode & 0o777).toBe(0o755);
    const env = { ...process.env, ...pushBlockingEnv(process.env, hooks) };
    await execa('git', ['init', '-q', '--bare', join(dir, 'remote.git')]);
    const hooked = await execa('git', ['push', 'remote.git', 'HEAD:refs/heads/x'], { cwd: dir, env, reject: false });
    expect(hooked.stderr).toContain('git push is blocked while a loop runs');
  });
});
