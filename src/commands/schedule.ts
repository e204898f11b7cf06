import { fileURLToPath } from 'node:url';
import { ExitCode, InputError } from '../errors.js';
import { repositoryRoot } from '../recon/refusals.js';
import { printLine } from '../report/terminal-output.js';

const BIN = fileURLToPath(new URL('../../bin/star-loop.js', import.meta.url));

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface Schedule {
  root: string;
  node: string;
  bin: string;
  /** `run`, or `fleet` (--fleet): a paused one continues, either way. */
  command: 'run' | 'fleet';
  args: string[];
  path: string;
  home: string;
}

/** A crontab line: absolute paths, PATH and HOME, output appended to .star/cron.log. */
export function cronLine(cron: string, s: Schedule): string {
  if (cron.trim().split(/\s+/).length !== 5)
    throw new InputError(`--cron "${cron}": expected five fields, e.g. "0 1 * * *"`);
  const command = [s.node, s.bin, s.command, ...s.args].map(shellQuote).join(' ');
  return (
    `${cron.trim()} cd ${shellQuote(s.root)} && mkdir -p .star && PATH=${shellQuote(s.path)} ` +
    `HOME=${shellQuote(s.home)} ${command} >> ${shellQuote(`${s.root}/.star/cron.log`)} 2>&1`
  );
}

/** A launchd plist for the same run, at the minute and hour of a cron expression. */
export function launchdPlist(cron: string, s: Schedule, label = 'dev.star-loop.run'): string {
  const [minute, hour] = cron.trim().split(/\s+/);
  const interval = [
    /^\d+$/.test(minute ?? '') ? `      <key>Minute</key><integer>${minute}</integer>` : '',
    /^\d+$/.test(hour ?? '') ? `      <key>Hour</key><integer>${hour}</integer>` : '',
  ].filter(Boolean);
  const args = [s.node, s.bin, s.command, ...s.args].map((a) => `    <string>${xml(a)}</string>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>${label}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>WorkingDirectory</key><string>${xml(s.root)}</string>
  <key>EnvironmentVariables</key>
  <dict>
    <key>PATH</key><string>${xml(s.path)}</string>
    <key>HOME</key><string>${xml(s.home)}</string>
  </dict>
  <key>StartCalendarInterval</key>
  <dict>
${interval.join('\n')}
  </dict>
  <key>StandardOutPath</key><string>${xml(s.root)}/.star/cron.log</string>
  <key>StandardErrorPath</key><string>${xml(s.root)}/.star/cron.log</string>
</dict>
</plist>`;
}

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
