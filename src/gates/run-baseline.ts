import { writeFile } from 'node:fs/promises';
import type { Baseline } from '../state/state-schema.js';
import { toBaseline } from './compare-gates.js';
import type { Gate } from './gate.js';
import type { GatePlace } from './gate-bench.js';
import { runGatesOn } from './run-gates.js';

/**
 * The gates, once, on the starting commit (a run's, or a fleet's integration branch before its first merge):
 * which were already red, and how red, is the baseline every claim (or merge) is compared with, so old
 * failures neither block the work nor hide new ones. Like every gate run, on a clean copy of the commit.
 */
export async function runBaseline(
  gates: readonly Gate[],
  place: GatePlace,
  commit: string,
  logFile: string,
): Promise<Baseline> {
  const { results, tests } = await runGatesOn(gates, { ...place, commit, logFile });
  // Every test's outcome at the baseline, beside its log: pass-to-pass compares claims with it.
  await writeFile(baselineTestsFile(logFile), `${JSON.stringify({ commit, gates: tests })}\n`, 'utf8');
  return { commit, gates: results.map(toBaseline) };
}

/** The baseline's tests.json: `baseline.log` → `baseline-tests.json`. */
export function baselineTestsFile(logFile: string): string {
  return logFile.replace(/\.log$/, '-tests.json');
}
