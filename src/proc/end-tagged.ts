import { readdir, readFile } from 'node:fs/promises';

/** The environment variable every child star-loop starts carries, with a value of its own. */
export const PROCESS_TAG_ENV = 'STAR_LOOP_PROCESS';

/**
 * Ends (SIGKILL) every process whose environment carries `tag`: what a timed-out or stopped child left
 * outside its process group (`setsid`, a double fork) — the environment is inherited however a process
 * detaches. Linux (/proc) only; elsewhere, and for a process that cleared its environment, nothing is
 * found (without the sandbox such a process is not contained: docs/safety.md). Returns how many were ended.
 * Reading every process's environment costs milliseconds, so this runs only when a child was ended or
 * left something holding its output, never after a normal exit.
 */
export async function endTagged(tag: string): Promise<number> {
  const needle = Buffer.from(`${PROCESS_TAG_ENV}=${tag}\0`);
  const names = await readdir('/proc').catch(() => [] as string[]);
  let ended = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const environ = await readFile(`/proc/${name}/environ`).catch(() => undefined);
    if (!environ?.includes(needle)) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
      ended++;
    } catch {
      // ESRCH: gone meanwhile; EPERM: not ours.
    }
  }
  return ended;
}
