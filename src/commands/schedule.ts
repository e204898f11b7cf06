import { ExitCode, InputError } from '../errors.js';
import { repositoryRoot } from '../recon/refusals.js';
import { cronLine, launchdPlist, type Schedule } from '../report/render-schedule.js';
import { printLine } from '../report/terminal-output.js';
import { packageFile } from '../util/package-root.js';

const BIN = packageFile('bin/star-loop.js');

/**
 * `star-loop schedule --cron "0 1 * * *" [--launchd] [--fleet] -- <run arguments>`: prints what to install.
 * The same `run` (or `fleet`) command continues a paused one, so each night picks up where the last stopped.
 */
export async function scheduleCommand(
  runArgs: string[],
  flags: { cron?: string; launchd?: boolean; fleet?: boolean },
): Promise<ExitCode> {
  const root = await repositoryRoot(process.cwd(), 'run it in the repository the loop should work on');
  if (!flags.cron)
    throw new InputError(
      '--cron "MIN HOUR DOM MON DOW" is required',
      'e.g. star-loop schedule --cron "0 1 * * *" -- --prd prd.json',
    );
  const schedule: Schedule = {
    root,
    node: process.execPath,
    bin: BIN,
    command: flags.fleet ? 'fleet' : 'run',
    args: runArgs,
    path: process.env.PATH ?? '/usr/bin:/bin',
    home: process.env.HOME ?? root,
  };
  printLine(flags.launchd ? launchdPlist(flags.cron, schedule) : cronLine(flags.cron, schedule));
  if (!flags.launchd)
    printLine(
      '# install with `crontab -e`; agent credentials (e.g. ANTHROPIC_API_KEY) must be set in the crontab environment',
    );
  return ExitCode.Complete;
}
