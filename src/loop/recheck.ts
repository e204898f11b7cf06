import { join } from 'node:path';
import { compareGates } from '../gates/compare-gates.js';
import { runGatesOn } from '../gates/run-gates.js';
import type { Finding } from '../state/finding-schema.js';
import type { RunState } from '../state/state-schema.js';
import { buildChangeSet } from '../verify/build-change-set.js';
import { testRemoval } from '../verify/detectors/test-removal.js';
import type { LoopContext } from './loop-context.js';

/**
 * Before a PRD run ends as complete: do the stories accepted earlier still hold? The gates must still
 * stand against the baseline, and no test that existed when a story was accepted may have gone since.
 */
export async function recheckAccepted(ctx: LoopContext, state: RunState): Promise<Finding[]> {
  const head = await ctx.git.head();
  if (!head) return [];
  const { results, findings: untrusted } = await runGatesOn(ctx.gates, {
    ...ctx.verify.gatePlace,
    commit: head,
    installedAt: state.baseline?.commit,
    logFile: join(ctx.paths.dir, 'recheck.log'),
  });
  const compared = compareGates(state.baseline?.gates ?? [], results);
  const findings: Finding[] = [...compared.findings, ...untrusted];
  const exclude = new Set(ctx.prdRelative ? [ctx.prdRelative] : []);
  for (const accepted of state.accepted) {
    if (!accepted.commit || accepted.commit === head) continue;
    const since = await buildChangeSet(ctx.git, accepted.commit, head, '', exclude);
    for (const f of testRemoval.detect(since))
      findings.push({ ...f, detail: `${accepted.story ?? 'task'}: ${f.detail} after it was accepted` });
  }
  state.recheck = { gates: compared.rows, findings };
  return findings;
}
