import type { Git } from '../git/git.js';
import type { Baseline } from '../state/state-schema.js';
import { toBaseline } from './compare-gates.js';
import type { Gate } from './gate.js';
import { type GateRunOptions, runGates } from './run-gates.js';

/**
 * The gates, once, on the starting commit (a run's, or a fleet's integration branch before its first merge):
 * which were already red, and how red, is the baseline every claim (or merge) is compared with, so old
 * failures neither block the work nor hide new ones.
 */
export async function runBaseline(git: Git, gates: readonly Gate[], options: GateRunOptions): Promise<Baseline> {
  const commit = (await git.head()) ?? '';
  const results = await runGates(gates, options);
  return { commit, gates: results.map(toBaseline) };
}
