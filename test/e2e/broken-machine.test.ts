import { execa } from 'execa';
import { describe, expect } from 'vitest';
import { sandboxIt, sandboxSupport } from '../helpers/needs-sandbox.js';
import { BIN } from '../helpers/run-cli.js';

/**
 * A machine that cannot take a write: the repository on a 4 MB tmpfs (bubblewrap makes one, no root
 * needed), and an agent that fills it. star-loop stops named, releases its lock, leaves no half-written
 * file, and says its report on stderr when it cannot write one (issue 18).
 */
const SCRIPT = `set -e
cd /mnt/small
git init -q -b main r && cd r
git config user.email t@example.invalid && git config user.name t
echo '{"name":"x","scripts":{"test":"node -e 0"}}' > package.json
echo '{"branchName":"work","userStories":[{"id":"A","title":"t","passes":false}]}' > prd.json
git add -A && git commit -qm init
set +e
node "$BIN" run --prd prd.json --max-iterations 3 --sandbox off --agent command \\
  --agent-cmd 'head -c 50000000 /dev/zero > fill.bin 2>/dev/null; echo done'
echo "exit=$?"
test -e .star/lock && echo LOCK-LEFT
ls -a .star | grep -q '\\.tmp$' && echo TMP-LEFT
pgrep -f "$BIN run" && echo PROCESS-LEFT
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
});
