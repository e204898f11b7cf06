import { ExitCode, InputError } from '../errors.js';
import { repositoryRoot } from '../recon/refusals.js';
import { describeFleetStatus, renderFleetStatus } from '../report/describe-fleet-status.js';
import { describeRunStatus, renderRunStatus } from '../report/describe-run-status.js';
import { printLine } from '../report/terminal-output.js';
import { fleetStateSchema } from '../state/fleet-state-schema.js';
import { latestIsFleet } from '../state/latest-is-fleet.js';
import { isStale, readLock } from '../state/lock.js';
import { FLEET_SCHEMA_VERSION } from '../state/schema-versions.js';
import { starPaths } from '../state/star-paths.js';
import { readState, readStateFile } from '../state/state-store.js';

export async function statusCommand(flags: { json?: boolean }): Promise<ExitCode> {
  const root = await repositoryRoot(process.cwd(), 'run it in the repository the loop runs in');
  const paths = starPaths(root);
  if (await latestIsFleet(root)) {
    const fleet = await readStateFile(paths.fleet, fleetStateSchema, FLEET_SCHEMA_VERSION);
    if (fleet) {
      const lock = await readLock(paths.lock);
      const status = describeFleetStatus(fleet, lock && !isStale(lock) ? lock.pid : undefined);
      printLine(flags.json ? JSON.stringify(status) : renderFleetStatus(status));
      return ExitCode.Complete;
    }
  }
  const state = await readState(paths.state);
  if (!state)
    throw new InputError(`no star-loop run in ${root} (no .star/state.json)`, 'start one with `star-loop run`');
  const lock = await readLock(paths.lock);
  const status = describeRunStatus(state, lock && !isStale(lock) ? lock.pid : undefined);
  printLine(flags.json ? JSON.stringify(status) : renderRunStatus(status));
  return ExitCode.Complete;
}
