// The processes star-loop itself starts per iteration, besides the agent and the gates: strace -f of two runs
// (2 and 6 iterations), every execve that is not the fake agent's own work, the difference divided by 4.
// Inside the sandbox's PID namespace strace cannot link children to parents, so the agent's processes are
// known by what bench/fake-agent.sh runs (itself, cat, date, its git add/commit and the hooks that commit
// fires). Sandbox helpers (bwrap, the network bridge) count as star-loop's. Needs strace on PATH.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The fake agent's own processes (bench/fake-agent.sh and what its commit runs), by command line. */
const AGENT = [
  /\/claude$/,
  /^cat$/,
  /^date /,
  /^git add bench-work/,
  /^git -c user\.name=bench/,
  /^git maintenance/,
  /^(post-index-change|prepare-commit-msg|reference-transaction|post-commit|pre-commit|commit-msg)\b/,
];

/** execve calls in strace's text (pure), by command name and first two arguments, the agent's left out. */
export function ownProcesses(trace) {
  const counts = new Map();
  for (const line of trace.split('\n')) {
    const ex = /^\d+\s+execve\("([^"]+)", \[(.*?)\]/.exec(line);
    if (!ex || /= -1 /.test(line)) continue;
    const [, file, args] = ex;
    if (file.endsWith('/claude')) continue;
    const list = args.split(', ').map((a) => a.replace(/^"|"$/g, '')).slice(1);
    // The fake agent's commit is known by its -c pairs, before they are dropped below.
    if (AGENT.some((re) => re.test(`${file.split('/').pop()} ${list.join(' ')}`))) continue;
    // git's global options (star-loop's guard: -c pairs, -C, --git-dir…) say nothing of what it does.
    while (list[0] === '-c' || list[0] === '-C' || /^--(git-dir|work-tree|no-optional-locks|literal)/.test(list[0] ?? ''))
      list.splice(0, list[0] === '-c' || list[0] === '-C' ? 2 : 1);
    const name = `${file.split('/').pop()} ${list.slice(0, 2).join(' ')}`.trim();
    if (AGENT.some((re) => re.test(name))) continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

export function processesPerIteration(repo, env, bin, extra = []) {
  if (spawnSync('strace', ['-V']).status !== 0) return { measured: false, reason: 'strace is not installed' };
  const dir = mkdtempSync(join(tmpdir(), 'star-loop-strace-'));
  const run = (n) => {
    rmSync(join(repo, '.star'), { recursive: true, force: true });
    const out = join(dir, `trace-${n}`);
    const args = ['run', '--prompt', 'PROMPT.md', '--verify', 'off', '--max-iterations', String(n), '--stall-after', '1000', ...extra];
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=execve', '-o', out, process.execPath, bin, ...args], {
      cwd: repo,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // A run that stopped early (exit 3 is --max-iterations reached) would count its start-up as iterations.
    if (r.status !== 3) throw new Error(`star-loop exited ${r.status} under strace: ${String(r.stderr).slice(-500)}`);
    return ownProcesses(readFileSync(out, 'utf8'));
  };
  let two;
  let six;
  try {
    two = run(2);
    six = run(6);
  } catch (error) {
    return { measured: false, reason: error.message };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const per = [];
  for (const [name, count] of six) {
    const d = (count - (two.get(name) ?? 0)) / 4;
    if (d > 0) per.push([name, d]);
  }
  per.sort((a, b) => b[1] - a[1]);
  return { measured: true, perIteration: per.reduce((s, [, d]) => s + d, 0), byCommand: Object.fromEntries(per) };
}
