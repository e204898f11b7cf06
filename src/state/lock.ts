import { readFileSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { RefusedError } from '../errors.js';
import { parseJson } from '../util/parse-json.js';

export interface LockInfo {
  pid: number;
  startedAt: string;
  host: string;
}

/** Whether a process runs (a zombie, exited but not yet reaped, does not). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

export async function readLock(file: string): Promise<LockInfo | undefined> {
  try {
    return parseJson(await readFile(file, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

/** A lock held by a process that no longer runs on this host. */
export function isStale(lock: LockInfo): boolean {
  return lock.host === hostname() && !processRuns(lock.pid);
}

/**
 * `.star/lock`: one loop per repository. Created exclusively; a lock whose process is gone is taken over
 * (and said so); a live one refuses the start with exit 4, naming its PID.
 */
export async function acquireLock(file: string, warn: (message: string) => void): Promise<() => Promise<void>> {
  const mine: LockInfo = { pid: process.pid, startedAt: new Date().toISOString(), host: hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${JSON.stringify(mine)}\n`);
      await handle.close();
      return async () => {
        // Never a crash at the end of a run: a lock that cannot be removed (a .star made unwritable) is said,
        // and the next run takes it over once this process is gone.
        try {
          if ((await readLock(file))?.pid === process.pid) await rm(file, { force: true });
        } catch (error) {
          process.stderr.write(
            `star-loop: the lock ${file} could not be removed (${(error as Error).message}); ` +
              'the next run takes it over, as its process is gone\n',
          );
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await readLock(file);
    if (held && !isStale(held)) {
      throw new RefusedError(
        `another star-loop is running in this repository (PID ${held.pid} on ${held.host}, since ${held.startedAt})`,
        'wait for it to finish; `star-loop status` shows what it is doing',
      );
    }
    warn(
      `took over a stale lock left by PID ${held?.pid ?? '?'} (${held?.startedAt ?? 'unknown start'}), which no ` +
        `longer runs`,
    );
    await rm(file, { force: true });
  }
  throw new RefusedError('could not take the lock .star/lock', 'remove .star/lock if no star-loop runs here');
}
