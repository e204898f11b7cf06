import { stat } from 'node:fs/promises';
import { InputError } from '../errors.js';
import { Git } from '../git/git.js';
import { FLEET_SCHEMA_VERSION, fleetStateSchema } from '../state/fleet-state-schema.js';
import { starPaths } from '../state/star-paths.js';
import { readState, readStateFile } from '../state/state-store.js';

/** Whether a fleet, not a single run, was the last active here (a fleet's workers keep their state in their worktrees). */
export async function latestIsFleet(root: string): Promise<boolean> {
  const paths = starPaths(root);
  const [run, fleet] = await Promise.all([stat(paths.state).catch(() => undefined), stat(paths.fleet).catch(() => undefined)]);
  return fleet !== undefined && (run === undefined || fleet.mtimeMs >= run.mtimeMs);
}

/** The command and arguments of the paused or interrupted run (or fleet) in this repository, for `star-loop resume`. */
export async function resumeArgs(cwd: string): Promise<string[]> {
  const root = await Git.topLevel(cwd);
  if (!root) throw new InputError(`${cwd} is not inside a git repository`, 'run it in the repository of the run');
  const paths = starPaths(root);
  if (await latestIsFleet(root)) {
    const fleet = await readStateFile(paths.fleet, fleetStateSchema, FLEET_SCHEMA_VERSION);
    if (fleet?.status === 'finished') {
      throw new InputError(
        `the last fleet (${fleet.fleetId}) finished: ${fleet.stopReason ?? 'done'}`,
        'start a new one with `star-loop fleet …`',
      );
    }
    if (fleet) return ['fleet', ...fleet.argv];
  }
  const state = await readState(paths.state);
  if (!state?.argv) throw new InputError(`no run to resume in ${root}`, 'start one with `star-loop run`');
  if (state.status === 'finished') {
    throw new InputError(`the last run (${state.runId}) finished: ${state.stopReason ?? 'done'}`, 'start a new one with `star-loop run …`');
  }
  return ['run', ...state.argv];
}
