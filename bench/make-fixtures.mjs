// Benchmark fixtures, made once and kept in bench/.fixtures (git-ignored): a small repository and one with
// 100,000 files. Each is a git repository on branch `work` with a no-op gate in star.config.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd, stdio: 'ignore' });

function base(dir) {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'bench', private: true }, null, 2)}\n`);
  writeFileSync(join(dir, 'star.config.json'), `${JSON.stringify({ gates: [{ name: 'noop', command: 'true' }] }, null, 2)}\n`);
  writeFileSync(join(dir, 'PROMPT.md'), 'Append a line to bench-work.txt and commit it.\n');
  const stories = Array.from({ length: 40 }, (_, i) => ({
    id: `B-${String(i + 1).padStart(3, '0')}`,
    title: `Bench story ${i + 1}`,
    description: 'Append a line and commit.',
    acceptanceCriteria: ['a line is appended'],
    priority: i + 1,
    passes: false,
  }));
  writeFileSync(join(dir, 'prd.json'), `${JSON.stringify({ project: 'bench', userStories: stories }, null, 2)}\n`);
}

function finish(dir) {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'fixture');
  git(dir, 'switch', '-q', '-c', 'work');
  writeFileSync(join(dir, '.git', 'bench-fixture-ready'), '');
}

/**
 * A fixture as it was made: its work branch back at the fixture commit, and star-loop's refs, reflogs, state
 * and evidence store from earlier benches gone — they pile up (a work file thousands of lines long, thousands
 * of refs) and would make each bench slower than the last.
 */
function reset(dir) {
  git(dir, 'checkout', '-qf', 'work');
  git(dir, 'reset', '-q', '--hard', 'main');
  git(dir, 'clean', '-qfdx');
  const refs = execFileSync('git', ['for-each-ref', '--format=delete %(refname)', 'refs/star-loop'], { cwd: dir });
  if (refs.length > 0) execFileSync('git', ['update-ref', '--stdin'], { cwd: dir, input: refs });
  git(dir, 'reflog', 'expire', '--expire=all', '--all');
  rmSync(join(dir, '.git', 'star-loop'), { recursive: true, force: true });
  // The objects earlier benches wrote, unreachable now, go too; and no automatic gc: past git's threshold of
  // loose objects every commit (the bare loop's agent, or star-loop's) started a repack in the background,
  // which ran into the next measurements and counted as a process of an iteration.
  git(dir, 'prune', '--expire=now');
  git(dir, 'config', 'gc.auto', '0');
  git(dir, 'config', 'maintenance.auto', 'false');
}

export function ensureFixtures(root) {
  const small = join(root, 'small');
  const big = join(root, 'big');
  if (!existsSync(join(small, '.git', 'bench-fixture-ready'))) {
    base(small);
    for (let i = 0; i < 20; i++) writeFileSync(join(small, `file-${i}.txt`), `file ${i}\n`);
    finish(small);
  }
  if (!existsSync(join(big, '.git', 'bench-fixture-ready'))) {
    base(big);
    for (let d = 0; d < 1000; d++) {
      const dir = join(big, 'src', `d${d}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100; f++) writeFileSync(join(dir, `f${f}.txt`), `${d}/${f}\n`);
    }
    finish(big);
  }
  for (const dir of [small, big]) reset(dir);
  return { small, big };
}
