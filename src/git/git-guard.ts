/**
 * Every git command star-loop runs is guarded, so code an agent planted cannot run inside star-loop's own
 * git: the system and the user's global config are not read (an agent can write `~/.gitconfig`); hooks,
 * fsmonitor and signing are off; and the driver commands (filters, textconv, merge drivers) are the ones
 * the user's config had before any agent ran — git-lfs's filter keeps working — while any driver command
 * that appeared or changed since is switched off.
 */

/** The environment of star-loop's git commands. */
export const GUARDED_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ATTR_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/** Switched off for every command, whatever any config says. External diff: `--no-ext-diff` on every diff. */
export const ALWAYS_OFF: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.attributesFile=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
].flatMap((setting) => ['-c', setting]);

/** The commands a config can give to named drivers (`filter.NAME.clean`, …): they run inside git commands. */
const DRIVER_COMMAND = /^(filter\.(.+)\.(clean|smudge|process)|diff\.(.+)\.textconv|merge\.(.+)\.driver)$/i;

/** The driver commands in `git config --list -z` output (entries `key\nvalue\0`), by key. Pure. */
export function driverCommands(configList: string): Map<string, string> {
  const drivers = new Map<string, string>();
  for (const entry of configList.split('\0')) {
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    if (DRIVER_COMMAND.test(key)) drivers.set(key, newline < 0 ? '' : entry.slice(newline + 1));
  }
  return drivers;
}

/** The scopes git reads with GUARDED_ENV: the repository's own config files and the command line. */
const REPOSITORY_SCOPES: ReadonlySet<string> = new Set(['local', 'worktree', 'command']);

/**
 * `git config --list --show-scope -z` output (entries `scope\0key\nvalue\0`) as two `--list -z` outputs:
 * the whole config, and the part git reads with GUARDED_ENV (the repository's own files and the command
 * line; what they include carries their scope). One process instead of two at start-up. Pure.
 */
export function splitConfigScopes(text: string): { all: string; repository: string } {
  const parts = text.split('\0');
  let all = '';
  let repository = '';
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const entry = `${parts[i + 1]}\0`;
    all += entry;
    if (REPOSITORY_SCOPES.has(parts[i] ?? '')) repository += entry;
  }
  return { all, repository };
}

/**
 * The `-c` options that make git use exactly the trusted driver commands: each trusted one as it was (the
 * global config is not read, so it is given here), each new or changed one switched off — a filter blanked
 * and not required, a textconv blanked, a merge driver replaced by `false` (the file conflicts). Pure.
 */
export function driverGuard(trusted: ReadonlyMap<string, string>, current: ReadonlyMap<string, string>): string[] {
  const args: string[] = [];
  for (const [key, value] of trusted) args.push('-c', `${key}=${value}`);
  for (const [key, value] of current) {
    if (trusted.get(key) === value) continue;
    if (/^merge\./i.test(key)) args.push('-c', `${key}=false`);
    else args.push('-c', `${key}=`);
    const filter = /^filter\.(.+)\.(clean|smudge|process)$/i.exec(key);
    if (filter) args.push('-c', `filter.${filter[1]}.required=false`);
  }
  return args;
}
