// How often the gates ran, read from star-loop's logs (bench/run-bench.mjs, bench/fleet-bench.mjs).
// Fail-to-pass and mutants lay files over a commit by design and have logs of their own: left out.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One log: the gates that ran (a `===== gate NAME: COMMAND` line each), and the runs a checked tree saved. */
function count(file) {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  return {
    runs: lines.filter((l) => /^===== gate .+: /.test(l)).length,
    reused: lines.filter((l) => l.includes('their results are reused')).length,
  };
}

const sum = (list, key) => list.reduce((n, c) => n + c[key], 0);

/** A run's `.star`: the baseline, every claim, the final re-check. */
export function gateRuns(star) {
  const runsDir = join(star, 'runs');
  const claims = (existsSync(runsDir) ? readdirSync(runsDir) : []).map((d) => count(join(runsDir, d, 'gates.log')));
  const recheck = count(join(star, 'recheck.log'));
  return {
    baseline: count(join(star, 'baseline.log')).runs,
    claims: sum(claims, 'runs'),
    recheck: recheck.runs,
    reused: sum(claims, 'reused') + recheck.reused,
  };
}

/** A fleet's own gate runs, in the repository's `.star`: its baseline and every merge. */
export function fleetGateRuns(star) {
  const baseline = count(join(star, 'fleet', 'baseline.log'));
  const merges = count(join(star, 'fleet', 'merge-gates.log'));
  return { baseline: baseline.runs, merges: merges.runs, reused: baseline.reused + merges.reused };
}
