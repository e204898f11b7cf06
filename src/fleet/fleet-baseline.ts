import type { RunOptions } from '../config/run-options.js';
import type { Git } from '../git/git.js';
import type { Gate } from '../recon/gate.js';
import { toBaseline } from '../verify/compare-gates.js';
import { runGates } from '../verify/run-gates.js';
import type { FleetState } from './fleet-state-schema.js';

/**
 * The gates once on the integration branch before the first merge: a gate red then and no worse after a
 * merge is not held against the story (as in a single loop's baseline).
 */
export async function runFleetBaseline(input: {
  git: Git;
  gates: readonly Gate[];
  root: string;
  logFile: string;
  options: Pick<RunOptions, 'gateTimeoutMs'>;
  redactor: { redact: (text: string) => string; longest: number };
}): Promise<NonNullable<FleetState['baseline']>> {
  const commit = (await input.git.head()) ?? '';
  const results = await runGates(input.gates, {
    root: input.root,
    logFile: input.logFile,
    timeoutMs: input.options.gateTimeoutMs,
    env: process.env,
    redactor: input.redactor,
  });
  return { commit, gates: results.map(toBaseline) };
}
