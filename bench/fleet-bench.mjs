// The fleet's wall-time speed-up: independent stories with a slow fake agent, worked on by `star-loop fleet`
// with 1, 2 and 3 workers, beside a bare bash loop running the same agent once per story, one after another.
// Usage: npm run bench:fleet [-- --quick]  (writes bench/results-fleet.json)
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fleetGateRuns, gateRuns } from './gate-runs.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'bin', 'star-loop.js');
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 1 : 3;
const STORIES = 6;
const SLEEP_S = 3;

const fakeBin = join(here, '.fixtures', 'bin');
mkdirSync(fakeBin, { recursive: true });
copyFileSync(join(here, 'fake-agent.sh'), join(fakeBin, 'claude'));
chmodSync(join(fakeBin, 'claude'), 0o755);
const ENV = { ...process.env, PATH: `${fakeBin}:${process.env.PATH}`, CI: 'true', NO_COLOR: '1', BENCH_SLEEP: String(SLEEP_S), BENCH_CLAIM: '1' };
delete ENV.FORCE_COLOR;

const git = (cwd, ...args) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd, stdio: 'ignore' });

/** A fresh repository: one quick gate, a PRD of independent stories, on the branch `work`. */
function fixture(name) {
  const dir = join(here, '.fixtures', 'fleet', name);
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}.star-loop`, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'fleet-bench', private: true, scripts: { test: 'node -e 0' } }, null, 2)}\n`);
  writeFileSync(join(dir, 'PROMPT.md'), 'Do the story.\n');
  const userStories = Array.from({ length: STORIES }, (_, i) => ({
    id: `S${i + 1}`,
    title: `Story ${i + 1}`,
    acceptanceCriteria: ['a line in its own file'],
    priority: i + 1,
    passes: false,
  }));
  writeFileSync(join(dir, 'prd.json'), `${JSON.stringify({ project: 'bench', branchName: 'work', userStories }, null, 2)}\n`);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'fixture');
  git(dir, 'switch', '-q', '-c', 'work');
  return dir;
}

function timed(command, args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status, out: `${r.stdout}${r.stderr}` };
}

function bare() {
  const dir = fixture('bare');
  const ids = Array.from({ length: STORIES }, (_, i) => `S${i + 1}`).join(' ');
  return timed('bash', ['-c', `for s in ${ids}; do STAR_STORY_ID=$s STAR_CLAIM_FILE=/dev/null claude < PROMPT.md > /dev/null; done`], dir).ms;
}

/** Each fleet's gate runs: its own (baseline, merges) and its workers' (each story's run). */
const gateCounts = {};

function fleet(workers) {
  const dir = fixture(`workers-${workers}`);
  const r = timed(process.execPath, [BIN, 'fleet', '--workers', String(workers)], dir);
  if (r.status !== 0) throw new Error(`star-loop fleet --workers ${workers} exited ${r.status}:\n${r.out.slice(-3000)}`);
  // Each finished worker's `.star` is kept in the fleet's, story by story and attempt by attempt.
  const kept = join(dir, '.star', 'fleet', 'stories');
  const stories = (existsSync(kept) ? readdirSync(kept) : []).flatMap((s) =>
    readdirSync(join(kept, s)).map((attempt) => gateRuns(join(kept, s, attempt))),
  );
  const total = (key) => stories.reduce((n, s) => n + s[key], 0);
  gateCounts[workers] = {
    fleet: fleetGateRuns(join(dir, '.star')),
    workers: { baseline: total('baseline'), claims: total('claims'), recheck: total('recheck'), reused: total('reused') },
  };
  return r.ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { bare: [], 1: [], 2: [], 3: [] };
for (let round = 0; round < ROUNDS; round++) {
  runs.bare.push(bare());
  for (const w of [1, 2, 3]) runs[w].push(fleet(w));
}
const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]));
const results = {
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  date: new Date().toISOString(),
  stories: STORIES,
  agentSeconds: SLEEP_S,
  rounds: ROUNDS,
  wallMs: runs,
  speedUp: { 'workers-2': m[1] / m[2], 'workers-3': m[1] / m[3] },
  vsBareLoop: { 'workers-1': m[1] / m.bare, 'workers-2': m[2] / m.bare, 'workers-3': m[3] / m.bare },
  gateRuns: gateCounts,
};
writeFileSync(join(here, 'results-fleet.json'), `${JSON.stringify(results, null, 2)}\n`);
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(`${STORIES} independent stories, a fake agent taking ${SLEEP_S} s per implementer run, median of ${ROUNDS}:`);
console.log(`  bare bash loop, one story after another: ${s(m.bare)}`);
for (const w of [1, 2, 3]) console.log(`  star-loop fleet --workers ${w}: ${s(m[w])} (${(m[w] / m.bare).toFixed(2)} × the bare loop)`);
console.log(`  speed-up over one worker: 2 workers ${results.speedUp['workers-2'].toFixed(2)} ×, 3 workers ${results.speedUp['workers-3'].toFixed(2)} ×`);
for (const w of [1, 2, 3]) {
  const g = gateCounts[w];
  console.log(
    `  gate runs, ${w} worker(s), ${STORIES} stories: fleet baseline ${g.fleet.baseline}, merges ${g.fleet.merges} ` +
      `(${g.fleet.reused} reused); workers' baselines ${g.workers.baseline}, claims ${g.workers.claims}, ` +
      `final re-checks ${g.workers.recheck} (${g.workers.reused} reused)`,
  );
}
