import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** The environment variable every child star-loop starts carries, with a value of its own. */
export const PROCESS_TAG_ENV = 'STAR_LOOP_PROCESS';

/**
 * The processes whose environment carries `tag`: the child that got it and all it started, however they
 * detached (`setsid`, a double fork) — the environment is inherited. Linux (/proc) only; elsewhere, and for
 * a process that cleared its environment, nothing is found (without the sandbox such a process is not
 * contained: docs/safety.md). Reading every process's environment costs milliseconds, so this runs only when
 * a child was ended or left something holding its output, or on resume, never after a normal exit.
 */
export async function findTagged(tag: string): Promise<number[]> {
  const needle = Buffer.from(`${PROCESS_TAG_ENV}=${tag}\0`);
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const environ = await readFile(`/proc/${name}/environ`).catch(() => undefined);
    if (environ?.includes(needle)) found.push(Number(name));
  }
  return found;
}

/** Whether this system shows processes' environments (Linux /proc): whether tags can be found at all. */
export function tagsFindable(): boolean {
  return existsSync('/proc/self/environ');
}

/** Sends `signal` (SIGKILL unless told) to every process carrying `tag`. Returns how many were signalled. */
export async function endTagged(tag: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<number> {
  let ended = 0;
  for (const pid of await findTagged(tag)) {
    try {
      process.kill(pid, signal);
      ended++;
    } catch {
      // ESRCH: gone meanwhile; EPERM: not ours.
    }
  }
  return ended;
}
