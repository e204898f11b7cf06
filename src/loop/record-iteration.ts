import { createHash } from 'node:crypto';
import type { Finding } from '../state/finding-schema.js';
import type { ClaimRecord, IterationRecord, RunState } from '../state/state-schema.js';
import type { IterationStart } from './begin-iteration.js';
import { detectHazard } from './detect-hazard.js';
import { measureMovement, sameSummary } from './measure-movement.js';
import type { ImplementerRun } from './run-implementer.js';
import type { SettledWork } from './settle-work.js';
import type { Judgement } from './verify-claim.js';

/** The part of the record every iteration has, at its end (HEAD as star-loop left it). */
function recordHead(start: IterationStart, agent: IterationRecord['agent'], endHead: string | undefined) {
  return {
    n: start.n,
    index: start.index,
    story: start.story?.id,
    startedAt: start.startedAt.toISOString(),
    durationMs: Date.now() - start.startedAt.getTime(),
    startHead: start.startHead,
    endHead,
    agent,
  };
}

/** The record of an iteration stopped by a safety violation: nothing else happened after it. */
export function violationRecord(
  start: IterationStart,
  implementer: ImplementerRun,
  endHead: string | undefined,
  violations: Finding[],
  keptRefs: string[],
): IterationRecord {
  return {
    ...recordHead(start, implementer.agent, endHead),
    moved: false,
    movement: [],
    claimNotes: [],
    verdict: 'no-claim',
    findings: [],
    gates: [],
    repeated: false,
    stall: false,
    safety: violations,
    keptRefs: [...start.keptRefs, ...keptRefs],
  };
}

export interface IterationEnd {
  settled: Extract<SettledWork, { kind: 'settled' }>;
  claim?: ClaimRecord;
  summary?: string;
  notes: string[];
  judged: Judgement;
  /** Task mode: the plan after the agent ran. The hash of prd.json or the plan, for oscillation. */
  planAfter?: string;
  planText?: string;
  endHead?: string;
  taskMode: boolean;
}

/**
 * An iteration's record: did the repository move (never judged on the agent's prose), did the agent show a
 * headless hazard, is it a stall. A verifier's rate limit is the iteration's too: not a stall.
 */
export function recordIteration(
  state: RunState,
  start: IterationStart,
  implementer: ImplementerRun,
  end: IterationEnd,
): IterationRecord {
  const { settled, judged } = end;
  const agent = {
    ...implementer.agent,
    rateLimited: implementer.agent.rateLimited || judged.verifierRateLimited || undefined,
  };
  const movement = measureMovement({
    startHead: start.startHead,
    endHead: settled.endHead,
    startTree: start.startTree,
    endTree: settled.endTree,
    filesChanged: settled.filesChanged,
    acceptedStories: judged.acceptedStories,
    taskAccepted: judged.verdict === 'accepted' && end.taskMode,
    planChanged: end.planAfter !== undefined && end.planAfter !== start.planBefore,
  });
  agent.hazard = agent.rateLimited
    ? undefined
    : detectHazard({
        output: implementer.run.output,
        exitCode: implementer.run.proc.exitCode,
        failed: implementer.failed,
        claimed: Boolean(end.claim),
        moved: movement.moved,
      });
  const { verification } = judged;
  return {
    ...recordHead(start, agent, end.endHead),
    endTree: settled.endTree,
    planHash: end.planText === undefined ? undefined : createHash('sha1').update(end.planText).digest('hex'),
    moved: movement.moved,
    movement: movement.reasons,
    committedForAgent: settled.committedForAgent,
    claim: end.claim,
    claimNotes: end.notes,
    verdict: judged.verdict,
    findings: judged.findings,
    gates: judged.gates,
    verification,
    summary: end.summary,
    repeated: !movement.moved && sameSummary(end.summary, state.records.at(-1)?.summary),
    // Waiting out a provider's limit is not the agent's failure: no stall.
    stall: !agent.rateLimited && (!movement.moved || judged.verdict === 'rejected'),
    safety: verification?.safety ?? [],
    keptRefs: [...start.keptRefs, ...(verification?.verifier?.keptRefs ?? [])],
  };
}
