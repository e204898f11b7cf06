import { InputError } from '../errors.js';
import { repositoryRoot } from '../recon/refusals.js';
import { fleetStateSchema } from '../state/fleet-state-schema.js';
import { latestIsFleet } from '../state/latest-is-fleet.js';
import { FLEET_SCHEMA_VERSION } from '../state/schema-versions.js';
import { starPaths } from '../state/star-paths.js';
import { readState, readStateFile } from '../state/state-store.js';

/** The command and arguments of the paused or interrupted run (or fleet) in this repository, for `star-loop resume`. */
export async function resumeArgs(cwd: string): Promise<string[]> {
  const root = await repositoryRoot(cwd, 'run it in the repository of the run');
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
    throw new InputError(
      `the last run (${state.runId}) finished: ${state.stopReason ?? 'done'}`,
      'start a new one with `star-loop run …`',
    );
  }
  return ['run', ...state.argv];
}
