// star-loop's own cost, measured side by side with a bare bash loop running the same fake agent.
// Usage: npm run bench [-- --quick]  (needs `npm run build` first; writes bench/results.json)
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFixtures } from './make-fixtures.mjs';
import { gateRuns } from './gate-runs.mjs';
import { processesPerIteration } from './count-processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
// STAR_LOOP_BENCH_BIN: another build's bin (an older commit's, for a before/after on one machine).
const BIN = process.env.STAR_LOOP_BENCH_BIN ?? join(here, '..', 'bin', 'star-loop.js');
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 7;

// The fake agent is found on PATH as `claude`, so star-loop runs it through its real Claude adapter.
const fakeBin = join(here, '.fixtures', 'bin');
mkdirSync(fakeBin, { recursive: true });
copyFileSync(join(here, 'fake-agent.sh'), join(fakeBin, 'claude'));
chmodSync(join(fakeBin, 'claude'), 0o755);
// star-loop's compiled-code cache in a folder of the bench's own, warm after the first start, as a user's is.
const CODE_CACHE = join(here, '.fixtures', 'code-cache');
const ENV = { ...process.env, PATH: `${fakeBin}:${process.env.PATH}`, CI: 'true', NO_COLOR: '1', STAR_LOOP_CODE_CACHE: CODE_CACHE };
delete ENV.FORCE_COLOR;

const fixtures = ensureFixtures(join(here, '.fixtures'));
// Runs leave star-loop's keep-refs behind (one per iteration); drop the fixtures' ones so every bench run
// starts from the same repositories.
for (const repo of [fixtures.small, fixtures.big]) {
  const refs = execFileSync('git', ['for-each-ref', '--format=delete %(refname)', 'refs/star-loop/'], { cwd: repo, encoding: 'utf8' });
  if (refs) execFileSync('git', ['update-ref', '--stdin'], { cwd: repo, input: refs });
  execFileSync('git', ['pack-refs', '--all'], { cwd: repo });
}

function timed(command, args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(command, args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function starLoop(repo, iterations, extra = []) {
  rmSync(join(repo, '.star'), { recursive: true, force: true });
  const r = timed(process.execPath, [BIN, 'run', '--prompt', 'PROMPT.md', '--verify', 'off', '--max-iterations', String(iterations), '--stall-after', '1000', ...extra], {
    cwd: repo,
  });
  if (r.status !== 3) throw new Error(`star-loop exited ${r.status}: ${r.stdout.slice(-2000)}${r.stderr.slice(-2000)}`);
  return r.ms;
}

function bashLoop(repo, iterations) {
  return timed('bash', ['-c', `for i in $(seq ${iterations}); do cat PROMPT.md | claude > /dev/null; done`], { cwd: repo }).ms;
}

/**
 * Overhead per iteration from the slope between a short and a long run, paired with the bash loop (A B A B).
 * `extra`: star-loop's arguments (`--sandbox off` to measure it without its sandbox).
 */
function overheadPerIteration(repo, n1, n2, extra = []) {
  const pairs = [];
  for (let round = 0; round < ROUNDS; round++) {
    const b1 = bashLoop(repo, n1);
    const s1 = starLoop(repo, n1, extra);
    const b2 = bashLoop(repo, n2);
    const s2 = starLoop(repo, n2, extra);
    pairs.push({ star: (s2 - s1) / (n2 - n1), bash: (b2 - b1) / (n2 - n1) });
  }
  return {
    starMsPerIteration: median(pairs.map((p) => p.star)),
    bashMsPerIteration: median(pairs.map((p) => p.bash)),
    overheadMs: median(pairs.map((p) => p.star - p.bash)),
  };
}

function gitStatusMs(repo) {
  return median(Array.from({ length: 9 }, () => timed('git', ['status', '--porcelain'], { cwd: repo }).ms));
}

/**
 * Start-up against `node -e 0`: each ratio is taken within a round (node, --version, --dry-run back to back)
 * and the median of those ratios reported. On a shared virtual machine node's own start moved between 90 and
 * 140 ms within an hour; a ratio of two medians taken minutes apart read "met" and "missed" on one build.
 */
function startup() {
  const node = [];
  const version = [];
  const drySmall = [];
  const dryCold = [];
  const versionRatio = [];
  const dryRatio = [];
  const dryColdRatio = [];
  const dryBig = [];
  const dry = ['run', '--prd', 'prd.json', '--dry-run'];
  const cold = { ...ENV, STAR_LOOP_CODE_CACHE: 'off' };
  // The first start of this build writes the code cache (from an empty folder, so every bench starts alike:
  // a dry-run's cache); every start measured below reads it (but `cold`). The first agent's measurement then
  // has its first run write the run's cache, which the per-iteration runs after it read.
  rmSync(CODE_CACHE, { recursive: true, force: true });
  timed(process.execPath, [BIN, ...dry], { cwd: fixtures.small });
  for (let i = 0; i < (quick ? 9 : 21); i++) {
    const n = timed(process.execPath, ['-e', '0']).ms;
    const v = timed(process.execPath, [BIN, '--version']).ms;
    const d = timed(process.execPath, [BIN, ...dry], { cwd: fixtures.small }).ms;
    const c = timed(process.execPath, [BIN, ...dry], { cwd: fixtures.small, env: cold }).ms;
    node.push(n);
    version.push(v);
    drySmall.push(d);
    dryCold.push(c);
    versionRatio.push(v / n);
    dryRatio.push(d / n);
    dryColdRatio.push(c / n);
  }
  for (let i = 0; i < (quick ? 3 : 7); i++) dryBig.push(timed(process.execPath, [BIN, ...dry], { cwd: fixtures.big }).ms);
  return {
    nodeMs: median(node),
    versionMs: median(version),
    versionRatio: median(versionRatio),
    dryRunSmallMs: median(drySmall),
    dryRunSmallRatio: median(dryRatio),
    dryRunColdMs: median(dryCold),
    dryRunColdRatio: median(dryColdRatio),
    dryRunBigMs: median(dryBig),
  };
}

/**
 * From star-loop's start to the first agent's start (the fake agent writes the time it starts), minus the
 * baseline gates' own time (log.jsonl): recon, opening the run and building the first prompt.
 */
function firstSpawn() {
  const repo = fixtures.small;
  const exclude = join(repo, '.git', 'info', 'exclude');
  mkdirSync(dirname(exclude), { recursive: true });
  if (!(existsSync(exclude) && readFileSync(exclude, 'utf8').includes('bench-start.stamp'))) writeFileSync(exclude, `${existsSync(exclude) ? readFileSync(exclude, 'utf8') : ''}bench-start.stamp\n`);
  const times = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    rmSync(join(repo, '.star'), { recursive: true, force: true });
    // In the work tree (the sandboxed agent writes nowhere else), git-ignored so it is never work.
    const stamp = join(repo, 'bench-start.stamp');
    rmSync(stamp, { force: true });
    const t0 = Date.now();
    timed(process.execPath, [BIN, 'run', '--prompt', 'PROMPT.md', '--verify', 'off', '--max-iterations', '2', '--stall-after', '1000'], {
      cwd: repo,
      env: { ...ENV, BENCH_START_FILE: stamp },
    });
    const started = Number(readFileSync(stamp, 'utf8').trim());
    const gates = readFileSync(join(repo, '.star', 'log.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === 'gate.finished' && e.iteration === undefined)
      .reduce((sum, e) => sum + e.result.durationMs, 0);
    times.push(started - t0 - gates);
  }
  rmSync(join(repo, 'bench-start.stamp'), { force: true });
  return { msToFirstAgent: median(times) };
}

function peakRss() {
  const bytes = quick ? 256 * 1024 * 1024 : 1024 * 1024 * 1024;
  rmSync(join(fixtures.small, '.star'), { recursive: true, force: true });
  const r = timed(process.execPath, [BIN, 'run', '--prompt', 'PROMPT.md', '--verify', 'off', '--max-iterations', '1'], {
    cwd: fixtures.small,
    env: { ...ENV, BENCH_PRINT_BYTES: String(bytes) },
  });
  const report = JSON.parse(readFileSync(join(fixtures.small, '.star', 'report.json'), 'utf8'));
  return { agentOutputBytes: bytes, peakRssMb: report.runner.peakRssBytes / 1024 / 1024, ms: r.ms };
}

function promptBytes() {
  const n = quick ? 60 : 200;
  starLoop(fixtures.small, n);
  const size = (i) => statSync(join(fixtures.small, '.star', 'runs', String(i).padStart(4, '0'), 'prompt.md')).size;
  const at = { 1: size(1), 20: size(20), [n]: size(n) };
  return { at, ratioLastTo20: at[n] / at[20] };
}

/** Time verification adds to a claim beyond the gates and the verifier agent: from the agent's end to the verdict. */
function verificationOverhead() {
  const repo = fixtures.small;
  rmSync(join(repo, '.star'), { recursive: true, force: true });
  const claims = quick ? 6 : 20;
  // Every story open again: prd.json as the fixture made it (earlier runs committed passes on `work`).
  writeFileSync(join(repo, 'prd.json'), execFileSync('git', ['show', 'main:prd.json'], { cwd: repo }));
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '--allow-empty', '-am', 'bench: reopen the stories'], { cwd: repo });
  const r = timed(process.execPath, [BIN, 'run', '--prd', 'prd.json', '--max-iterations', String(claims * 2 + 1)], {
    cwd: repo,
    env: { ...ENV, BENCH_CLAIM: '1' },
  });
  const events = readFileSync(join(repo, '.star', 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const byIteration = new Map();
  for (const e of events) {
    if (e.iteration === undefined) continue;
    const list = byIteration.get(e.iteration) ?? [];
    list.push(e);
    byIteration.set(e.iteration, list);
  }
  const overheads = [];
  for (const list of byIteration.values()) {
    const t = (type) => list.find((e) => e.event === type);
    const agentDone = t('agent.finished');
    const verdict = t('claim.verdict');
    const vStart = t('verifier.started');
    const vEnd = t('verifier.finished');
    if (!agentDone || !verdict) continue;
    const gates = list.filter((e) => e.event === 'gate.finished').reduce((sum, e) => sum + e.result.durationMs, 0);
    const verifier = vStart && vEnd ? Date.parse(vEnd.time) - Date.parse(vStart.time) : 0;
    overheads.push(Date.parse(verdict.time) - Date.parse(agentDone.time) - gates - verifier);
  }
  return { claims: overheads.length, overheadMsPerClaim: median(overheads), exitCode: r.status };
}

/**
 * Verification by execution, per claim, in multiples of the test gate's own time: a project whose
 * `node --test` suite takes about a second, features claimed with their tests (fail-to-pass runs, and
 * mutants until one is killed), the verifier's time left out.
 */
function verificationCost() {
  const repo = mkdtempSync(join(tmpdir(), 'star-loop-bench-verify-'));
  const git = (...args) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: repo });
  writeFileSync(join(repo, 'package.json'), `${JSON.stringify({ name: 'bench', type: 'module', scripts: { test: 'node --test' } })}\n`);
  mkdirSync(join(repo, 'test'));
  for (let i = 0; i < 20; i++) {
    const cases = Array.from({ length: 10 }, (_, k) => `test('sum ${i}.${k}', () => {\n  let s = 0;\n  for (let n = 0; n < 200000; n++) s += n % 7;\n  assert.ok(s > 0);\n});\n`);
    writeFileSync(join(repo, 'test', `suite-${i}.test.js`), `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n\n${cases.join('\n')}`);
  }
  const stories = quick ? 3 : 6;
  const prd = { project: 'bench', userStories: Array.from({ length: stories }, (_, i) => ({ id: `US-${i + 1}`, title: `Feature ${i + 1}`, passes: false, priority: i + 1 })) };
  writeFileSync(join(repo, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'bench project');
  git('switch', '-qc', 'work');
  const r = timed(process.execPath, [BIN, 'run', '--prd', 'prd.json', '--max-iterations', String(stories * 2 + 1)], {
    cwd: repo,
    env: { ...ENV, BENCH_CLAIM: '1', BENCH_FEATURE: '1' },
  });
  const events = readFileSync(join(repo, '.star', 'log.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const ratios = [];
  for (let n = 1; n <= stories * 2; n++) {
    const list = events.filter((e) => e.iteration === n);
    const t = (type) => list.find((e) => e.event === type);
    const agentDone = t('agent.finished');
    const verdict = t('claim.verdict');
    if (!agentDone || !verdict) continue;
    const gate = list.filter((e) => e.event === 'gate.finished').reduce((sum, e) => sum + e.result.durationMs, 0);
    const vStart = t('verifier.started');
    const vEnd = t('verifier.finished');
    const verifier = vStart && vEnd ? Date.parse(vEnd.time) - Date.parse(vStart.time) : 0;
    if (gate > 0) ratios.push((Date.parse(verdict.time) - Date.parse(agentDone.time) - verifier) / gate);
  }
  const runs = gateRuns(join(repo, '.star'));
  const accepted = events.filter((e) => e.event === 'claim.verdict' && e.verdict === 'accepted').length;
  rmSync(repo, { recursive: true, force: true });
  return { claims: ratios.length, ratioToTestGate: median(ratios), exitCode: r.status, gateRuns: { ...runs, accepted } };
}

const results = { machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version }, date: new Date().toISOString() };
console.error('startup…');
results.startup = startup();
console.error('time to the first agent…');
results.firstSpawn = firstSpawn();
console.error('processes per iteration…');
results.processes = processesPerIteration(fixtures.small, ENV, BIN);
results.processesUnsandboxed = processesPerIteration(fixtures.small, ENV, BIN, ['--sandbox', 'off']);
console.error('overhead per iteration, small repo…');
results.small = { ...overheadPerIteration(fixtures.small, 5, quick ? 15 : 25), gitStatusMs: gitStatusMs(fixtures.small) };
console.error('the same without the sandbox…');
results.smallUnsandboxed = overheadPerIteration(fixtures.small, 5, quick ? 15 : 25, ['--sandbox', 'off']);
results.sandboxMsPerIteration = results.small.starMsPerIteration - results.smallUnsandboxed.starMsPerIteration;
console.error('overhead per iteration, 100k-file repo…');
results.big = { ...overheadPerIteration(fixtures.big, 3, quick ? 6 : 10), gitStatusMs: gitStatusMs(fixtures.big) };
results.big.ratioToGitStatus = results.big.overheadMs / results.big.gitStatusMs;
console.error('prompt bytes…');
results.prompt = promptBytes();
console.error('verification overhead…');
results.verification = verificationOverhead();
console.error('verification by execution, per claim…');
results.verificationCost = verificationCost();
console.error('peak memory with a flood of agent output…');
results.memory = peakRss();

const f = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const ok = (met) => (met ? 'met' : 'missed');
const processesOf = (p) =>
  p.measured
    ? `${p.perIteration.toFixed(1)} (${Object.entries(p.byCommand).slice(0, 6).map(([c, n]) => `${c.split(' ').slice(0, 2).join(' ')} ${n}`).join(', ')})`
    : `not measured: ${p.reason}`;
const rows = [
  ['runner overhead per iteration, small repo', `${f(results.small.overheadMs)} ms (star-loop ${f(results.small.starMsPerIteration)} ms vs bash ${f(results.small.bashMsPerIteration)} ms per iteration)`, '≤ 20 ms', ok(results.small.overheadMs <= 20)],
  ['processes star-loop starts per iteration, besides the agent and gates', processesOf(results.processes), '≤ 3', results.processes.measured ? ok(results.processes.perIteration <= 3) : '—'],
  ['the same with --sandbox off (the agent commits itself)', processesOf(results.processesUnsandboxed), '≤ 3', results.processesUnsandboxed.measured ? ok(results.processesUnsandboxed.perIteration <= 3) : '—'],
  ['the sandbox per iteration (agent in bubblewrap, network gate)', `${results.sandboxMsPerIteration <= 0 ? 'no measurable cost' : `${f(results.sandboxMsPerIteration)} ms`} (${f(results.small.starMsPerIteration)} ms a loop sandboxed vs ${f(results.smallUnsandboxed.starMsPerIteration)} ms with --sandbox off)`, '≤ 50 ms', ok(results.sandboxMsPerIteration <= 50)],
  ['runner overhead per iteration, 100k-file repo', `${f(results.big.overheadMs)} ms = ${results.big.ratioToGitStatus.toFixed(2)} × git status (${f(results.big.gitStatusMs)} ms)`, '≤ 1.1 × git status', ok(results.big.ratioToGitStatus <= 1.1)],
  ['star-loop --version', `${f(results.startup.versionMs)} ms; ${results.startup.versionRatio.toFixed(2)} × node -e 0 (${f(results.startup.nodeMs)} ms), median of per-round ratios`, '≤ 1.2 ×', ok(results.startup.versionRatio <= 1.2)],
  ['run --dry-run, small repo', `${f(results.startup.dryRunSmallMs)} ms; ${results.startup.dryRunSmallRatio.toFixed(2)} × node -e 0, median of per-round ratios`, '≤ 2 ×', ok(results.startup.dryRunSmallRatio <= 2)],
  ['the same, first start of a build (no code cache)', `${f(results.startup.dryRunColdMs)} ms; ${results.startup.dryRunColdRatio.toFixed(2)} × node -e 0`, '—', '—'],
  ['start to the first agent spawn (baseline gates excluded)', `${f(results.firstSpawn.msToFirstAgent)} ms`, '≤ 150 ms', ok(results.firstSpawn.msToFirstAgent <= 150)],
  ['run --dry-run, 100k-file repo', `${f(results.startup.dryRunBigMs)} ms`, '≤ 1000 ms', ok(results.startup.dryRunBigMs <= 1000)],
  ['peak RSS, agent printing ' + `${results.memory.agentOutputBytes / 2 ** 20} MiB`, `${f(results.memory.peakRssMb)} MB`, '≤ 120 MB', ok(results.memory.peakRssMb <= 120)],
  ['prompt bytes at iterations 1 / 20 / last', `${Object.values(results.prompt.at).join(' / ')} (last ÷ 20 = ${results.prompt.ratioLastTo20.toFixed(3)})`, '≤ 1.05', ok(results.prompt.ratioLastTo20 <= 1.05)],
  ['verification overhead per claim beyond gates and verifier', `${f(results.verification.overheadMsPerClaim)} ms (median of ${results.verification.claims} claims)`, '—', '—'],
  ['gate runs per accepted story, one run (one gate: the suite)', (({ baseline, claims, recheck, reused, accepted }) => `baseline ${baseline}, claims ${(claims / Math.max(1, accepted)).toFixed(2)} per story (${claims} for ${accepted}), final re-check ${recheck} (${reused} reused)`)(results.verificationCost.gateRuns), 'baseline once, once per claim, no re-run for a tree already checked', ok(results.verificationCost.gateRuns.baseline === 1 && results.verificationCost.gateRuns.claims === results.verificationCost.gateRuns.accepted && results.verificationCost.gateRuns.recheck === 0)],
  ['verification cost per claim, mutants on (gates, fail-to-pass, mutants; verifier aside)', `${results.verificationCost.ratioToTestGate.toFixed(2)} × the test gate's own time (median of ${results.verificationCost.claims} claims)`, '≤ 3 ×', ok(results.verificationCost.ratioToTestGate <= 3)],
];
console.log(`| measure | result | target | |\n|---|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`);
console.log(`\nmachine: ${results.machine.cpus} × ${results.machine.cpu}, ${results.machine.memoryGiB} GiB, Node ${results.machine.node}; ${results.date}`);
writeFileSync(process.env.STAR_LOOP_BENCH_OUT ?? join(here, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
