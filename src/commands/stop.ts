import { ExitCode, InputError } from '../errors.js';
import { repositoryRoot } from '../recon/refusals.js';
import { printLine } from '../report/terminal-output.js';
import { isStale, readLock } from '../state/lock.js';
import { starPaths } from '../state/star-paths.js';

/**
 * `star-loop stop` (and `pause`): the live runner finishes its iteration, then stops (exit 6, resumable).
 * `--now`: it ends the agent's process group at once. Signals to the PID in `.star/lock`.
 */
export async function stopCommand(flags: { now?: boolean }): Promise<ExitCode> {
  const root = await repositoryRoot(process.cwd(), 'run it in the repository of the run');
  const lock = await readLock(starPaths(root).lock);
  if (!lock || isStale(lock))
    throw new InputError(`no star-loop is running in ${root}`, '`star-loop status` shows the last run');
  process.kill(lock.pid, flags.now ? 'SIGTERM' : 'SIGINT');
  printLine(
    flags.now
      ? `star-loop (PID ${lock.pid}) is stopping now`
      : `star-loop (PID ${lock.pid}) will stop after its current iteration`,
  );
  return ExitCode.Complete;
}
