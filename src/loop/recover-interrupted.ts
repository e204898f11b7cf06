import { endTagged, findTagged, tagsFindable } from '../proc/end-tagged.js';
import { killGroup } from '../proc/run-process.js';
import { checkSafety, type GuardSnapshot } from '../safety/check-safety.js';
import { refreshFingerprint, takeFingerprints } from '../safety/fingerprints.js';
import { guardFile, readGuardFile } from '../safety/guard-file.js';
import { keepEvidence } from '../safety/keep-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import { processRuns } from '../state/lock.js';
import type { IterationRecord, RunState } from '../state/state-schema.js';
import type { LoopContext } from './loop-context.js';

/**
 * What a dead runner left running, ended: TERM, up to 5 s, then KILL. Found by the environment tag it was
 * started with (Linux): never by a recorded PID alone, which another process may have been given since the
 * runner died (a reboot, hours of other work). Without a tag (a state from before tags were recorded) or
 * without /proc (macOS), the recorded process group, if its leader runs. Returns whether anything was ended.
 */
async function endLeft(pgid: number | undefined, tag: string | undefined): Promise<boolean> {
  const wait = async (running: () => Promise<boolean>) => {
    for (let i = 0; i < 50 && (await running()); i++) await new Promise((r) => setTimeout(r, 100));
  };
  if (tag && tagsFindable()) {
    if ((await endTagged(tag, 'SIGTERM')) === 0) return false;
    await wait(async () => (await findTagged(tag)).length > 0);
    await endTagged(tag, 'SIGKILL');
    return true;
  }
  if (!pgid || !processRuns(pgid)) return false;
  killGroup(pgid, 'SIGTERM');
  await wait(async () => processRuns(pgid));
  killGroup(pgid, 'SIGKILL');
  return true;
}

/** What recovery found: what it did, and the boundaries the dead run's agent crossed (nothing committed then). */
export interface Recovered {
  notes: string[];
  violations: Finding[];
}

/**
 * What the agent of the interrupted iteration was checked against: the snapshot taken before it started
 * (kept outside the repository), with star-loop's own files as they are now (it rewrote them on resume).
 * Without one (a run from before snapshots were kept), what can be checked without it: history and branch
 * since the last recorded commit, protected paths and secrets in what changed since.
 */
async function snapshotBefore(ctx: LoopContext, state: RunState, iteration: number): Promise<GuardSnapshot> {
  const kept = await readGuardFile(guardFile(ctx.evidence.dir, state.runId, iteration));
  const now = await takeFingerprints(ctx.guard);
  if (!kept) {
    const head = state.records.at(-1)?.endHead ?? state.workStarts[state.records.at(-1)?.story ?? 'task'];
    return { head, fingerprints: now, protectedFiles: new Map() };
  }
  for (const path of now.files.keys())
    if (path.startsWith(ctx.paths.dir)) await refreshFingerprint(kept.fingerprints, path);
  return kept;
}

/**
 * A runner killed mid-iteration (kill -9, a crash, a reboot) leaves an iteration without a record, perhaps
 * its agent still running, and perhaps uncommitted work. Before the run continues: end that agent's process
 * group, commit its work, and record the iteration as interrupted — nothing lost, nothing counted twice.
 */
export async function recoverInterrupted(ctx: LoopContext, state: RunState): Promise<Recovered> {
  const { git } = ctx;
  const notes: string[] = [];
  // A gate the dead runner started (at the baseline too, before any iteration): ended first.
  if (await endLeft(state.gatePgid, state.gateProcessTag))
    notes.push(`ended a gate left running by a runner that died (process group ${state.gatePgid})`);
  state.gatePgid = undefined;
  state.gateProcessTag = undefined;
  const current = state.current;
  if (!current) return { notes, violations: [] };
  if (await endLeft(current.pgid, current.processTag)) {
    notes.push(
      `ended the agent of interrupted iteration ${current.iteration} (process group ${current.pgid}), left ` +
        `running by a runner that died`,
    );
  }
  const startHead = state.records.at(-1)?.endHead;
  // Before anything is committed: the dead run's agent is checked as every agent is after its run.
  const violations = await checkSafety(ctx.guard, await snapshotBefore(ctx, state, current.iteration));
  if (violations.length > 0) {
    const keptRefs = await keepEvidence(git, state.runId, current.iteration, violations);
    // Outside the repository too, as after any iteration: the report's recovery commands must hold.
    const problem = await ctx.evidence.keep(state.runId);
    if (problem) notes.push(problem);
    state.iterationsThisRun += 1;
    state.records.push({
      ...interruptedRecord(state, current, startHead, await git.head()),
      safety: violations,
      keptRefs,
    });
    state.current = undefined;
    return { notes, violations };
  }
  let committed: string | undefined;
  if ((await git.workingChanges()).length > 0) {
    committed = await git.commitAll(
      `star-loop: iteration ${current.iteration} (uncommitted work left by an interrupted run)`,
    );
    notes.push(`committed the uncommitted work of interrupted iteration ${current.iteration}`);
  }
  const endHead = await git.head();
  state.iterationsThisRun += 1;
  state.records.push({
    ...interruptedRecord(state, current, startHead, endHead),
    moved: Boolean(committed) || (startHead !== undefined && startHead !== endHead),
    movement: committed ? ['uncommitted work committed on recovery'] : [],
    committedForAgent: committed,
  });
  state.current = undefined;
  return { notes, violations: [] };
}

/** The record of an iteration the runner did not live to finish: not verified, no claim. */
function interruptedRecord(
  state: RunState,
  current: NonNullable<RunState['current']>,
  startHead: string | undefined,
  endHead: string | undefined,
): IterationRecord {
  return {
    n: current.iteration,
    index: state.iterationsThisRun,
    story: current.story,
    startedAt: current.startedAt,
    durationMs: Date.now() - Date.parse(current.startedAt),
    startHead,
    endHead,
    agent: { timedOut: false, isError: true, error: 'interrupted: the runner stopped during this iteration' },
    moved: false,
    movement: [],
    claimNotes: ['not verified: the runner stopped during this iteration; any claim is made again by a later one'],
    verdict: 'no-claim',
    findings: [],
    gates: [],
    repeated: false,
    stall: false,
    safety: [],
    keptRefs: [],
  };
}
