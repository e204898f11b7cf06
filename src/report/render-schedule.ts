import { InputError } from '../errors.js';

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
