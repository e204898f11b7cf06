import type { Git } from '../git/git.js';
import { killGroup } from '../proc/run-process.js';
import { processRuns } from '../state/lock.js';
import type { RunState } from '../state/state-schema.js';

/**
 * A runner killed mid-iteration (kill -9, a crash, a reboot) leaves an iteration without a record, perhaps
 * its agent still running, and perhaps uncommitted work. Before the run continues: end that agent's process
 * group, commit its work, and record the iteration as interrupted — nothing lost, nothing counted twice.
 */
export async function recoverInterrupted(git: Git, state: RunState): Promise<string[]> {
  const current = state.current;
  if (!current) return [];
  const notes: string[] = [];
  if (current.pgid && processRuns(current.pgid)) {
    killGroup(current.pgid, 'SIGTERM');
    for (let i = 0; i < 50 && processRuns(current.pgid); i++) await new Promise((r) => setTimeout(r, 100));
    killGroup(current.pgid, 'SIGKILL');
    notes.push(
      `ended the agent of interrupted iteration ${current.iteration} (process group ${current.pgid}), left ` +
        `running by a runner that died`,
    );
  }
  const startHead = state.records.at(-1)?.endHead;
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
    n: current.iteration,
    index: state.iterationsThisRun,
    story: current.story,
    startedAt: current.startedAt,
    durationMs: Date.now() - Date.parse(current.startedAt),
    startHead,
    endHead,
    agent: { timedOut: false, isError: true, error: 'interrupted: the runner stopped during this iteration' },
    moved: Boolean(committed) || (startHead !== undefined && startHead !== endHead),
    movement: committed ? ['uncommitted work committed on recovery'] : [],
    committedForAgent: committed,
    claimNotes: ['not verified: the runner stopped during this iteration; any claim is made again by a later one'],
    verdict: 'no-claim',
    findings: [],
    gates: [],
    repeated: false,
    stall: false,
    safety: [],
    keptRefs: [],
  });
  state.current = undefined;
  return notes;
}
