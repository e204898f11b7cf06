import { InputError } from '../errors.js';
import { Git } from '../git/git.js';
import { starPaths } from '../state/star-paths.js';
import { readState } from '../state/state-store.js';

/** The arguments of the paused or interrupted run in this repository, for `star-loop resume`. */
export async function resumeArgs(cwd: string): Promise<string[]> {
  const root = await Git.topLevel(cwd);
  if (!root) throw new InputError(`${cwd} is not inside a git repository`, 'run it in the repository of the run');
  const state = await readState(starPaths(root).state);
  if (!state?.argv) throw new InputError(`no run to resume in ${root}`, 'start one with `star-loop run`');
  if (state.status === 'finished') {
    throw new InputError(`the last run (${state.runId}) finished: ${state.stopReason ?? 'done'}`, 'start a new one with `star-loop run …`');
  }
  return state.argv;
}
