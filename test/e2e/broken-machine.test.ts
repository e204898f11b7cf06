import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';
import { git, gitdir } from '../helpers/gitdir.js';
import { sandboxIt, sandboxSupport } from '../helpers/needs-sandbox.js';
import { BIN } from '../helpers/run-cli.js';

/** Shell lines that make a repository `r` in the current folder, with one story and a quick test gate. */
const NEW_REPO = `git init -q -b main r && cd r
git config user.email t@example.invalid && git config user.name t
echo '{"name":"x","scripts":{"test":"node -e 0"}}' > package.json
echo '{"branchName":"work","userStories":[{"id":"A","title":"t","passes":false}]}' > prd.json
git add -A && git commit -qm init
`;

/**
 * A machine that cannot take a write: the repository on a 4 MB tmpfs (bubblewrap makes one, no root
 * needed), and an agent that fills it. star-loop stops named, releases its lock, leaves no half-written
 * file, and says its report on stderr when it cannot write one (issue 18).
 */
const SCRIPT = `set -e
cd /mnt/small
${NEW_REPO}set +e
node "$BIN" run --prd prd.json --max-iterations 3 --sandbox off --agent command \\
  --agent-cmd 'head -c 50000000 /dev/zero > fill.bin 2>/dev/null; echo done'
echo "exit=$?"
test -e .star/lock && echo LOCK-LEFT
ls -a .star | grep -q '\\.tmp$' && echo TMP-LEFT
pgrep -f "$BIN run" && echo PROCESS-LEFT
exit 0
`;

/**
 * A .star that becomes unwritable mid-iteration: the agent (the same user, --sandbox off) takes the write
 * permission away. Run as a non-root user in a user namespace (bubblewrap), where permissions hold even for
 * a root CI. Then the permission is given back and `resume` carries on from the state left.
 */
const UNWRITABLE = `set -e
mkdir -p /mnt/w/home && export HOME=/mnt/w/home XDG_STATE_HOME=/mnt/w/state
cd /mnt/w
${NEW_REPO}set +e
node "$BIN" run --prd prd.json --max-iterations 2 --on-stall continue --sandbox off --agent command \\
  --agent-cmd 'test -f /mnt/w/once || { touch /mnt/w/once; chmod 555 .star .star/runs; }; echo x >> a.txt'
echo "exit=$?"
test -e .star/lock && echo LOCK-LEFT
pgrep -f "$BIN run" && echo PROCESS-LEFT
chmod 755 .star .star/runs
node "$BIN" resume
echo "resumed=$?"
git log --format=%s | grep -c 'iteration' | sed 's/^/iteration-commits=/'
exit 0
`;

describe('a broken machine', () => {
  sandboxIt('the disk fills up mid-iteration (ENOSPC): exit 1 named, lock released, report on stderr', async () => {
    const result = await execa(
      sandboxSupport.bwrap ?? 'bwrap',
      ['--dev-bind', '/', '/', '--size', String(4 * 1024 * 1024), '--tmpfs', '/mnt/small', '--', 'sh', '-c', SCRIPT],
      { env: { ...process.env, BIN }, reject: false, all: true, timeout: 45_000 },
    );
    const out = result.all ?? '';
    expect(out).toContain('exit=1');
    expect(out).toContain('error — the disk is full (ENOSPC)');
    expect(out).toContain('free some space');
    expect(out).toContain('star-loop: the report could not be written (ENOSPC');
    expect(out).not.toContain('internal error');
    expect(out).not.toMatch(/LOCK-LEFT|TMP-LEFT|PROCESS-LEFT|triggerUncaughtException/);
  });
  sandboxIt('.star unwritable mid-iteration (EACCES): named error, lock said, resume finishes the run', async () => {
    const result = await execa(
      sandboxSupport.bwrap ?? 'bwrap',
      ['--unshare-user', '--uid', '1000', '--gid', '1000', '--dev-bind', '/', '/', '--tmpfs', '/mnt/w'].concat([
        '--',
        'sh',
        '-c',
        UNWRITABLE,
      ]),
      { env: { ...process.env, BIN }, reject: false, all: true, timeout: 60_000 },
    );
    const out = result.all ?? '';
    expect(out).toContain('exit=1');
    expect(out).toContain('error — permission denied (EACCES)');
    expect(out).toContain('make the repository and its .star folder writable, then `star-loop resume`');
    expect(out).toContain('star-loop: the report could not be written (EACCES');
    // The lock cannot be removed from a folder that takes no writes: said, then taken over by the resume.
    expect(out).toMatch(/the lock \S+ could not be removed \(EACCES/);
    expect(out).toContain('took over a stale lock');
    expect(out).not.toMatch(/internal error|PROCESS-LEFT|triggerUncaughtException/);
    // Resume goes on to --max-iterations (exit 3); the agent's work of every iteration is committed.
    expect(out).toContain('resumed=3');
    expect(out).toMatch(/iteration-commits=[1-9]/);
  });

  sandboxIt('.star on a read-only file system (EROFS): exit 2 with the fix, nothing changed', async () => {
    const repo = await gitdir({ 'package.json': '{"name":"x","scripts":{"test":"node -e 0"}}\n' }, { branch: 'work' });
    await mkdir(join(repo, '.star'));
    const args = ['run', 'x', '--sandbox', 'off', '--agent', 'command', '--agent-cmd', 'echo x > a.txt'];
    const result = await execa(
      sandboxSupport.bwrap ?? 'bwrap',
      ['--dev-bind', '/', '/', '--ro-bind', join(repo, '.star'), join(repo, '.star'), '--chdir', repo, '--'].concat([
        process.execPath,
        BIN,
        ...args,
      ]),
      { env: { ...process.env, XDG_STATE_HOME: join(repo, '..', 'state') }, reject: false, all: true },
    );
    expect(result.exitCode).toBe(2);
    expect(result.all).toContain("cannot write star-loop's state in");
    expect(result.all).toContain('EROFS');
    expect(result.all).toContain('make the folder writable, then run again');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    expect(await git(repo, 'branch', '--show-current')).toBe('work');
    expect(await git(repo, 'rev-list', '--count', 'HEAD')).toBe('1');
  });
});
