/** How the terminal shows a run: a live status line, plain timestamped lines, or NDJSON events. */
export interface OutputMode {
  kind: 'live' | 'plain' | 'json';
  color: boolean;
}

const truthy = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/**
 * Pure. Live output only on a real terminal outside CI (and not TERM=dumb); colour on a live terminal
 * unless NO_COLOR is set, and wherever FORCE_COLOR asks for it (https://no-color.org, https://force-color.org).
 */
export function chooseOutputMode(input: { json: boolean; isTTY: boolean; env: NodeJS.ProcessEnv }): OutputMode {
  const { env } = input;
  if (input.json) return { kind: 'json', color: false };
  const live = input.isTTY && !truthy(env.CI) && env.TERM !== 'dumb';
  const color =
    env.FORCE_COLOR !== undefined ? truthy(env.FORCE_COLOR) || env.FORCE_COLOR === '' : live && !env.NO_COLOR;
  return { kind: live ? 'live' : 'plain', color };
}
