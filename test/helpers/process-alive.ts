import { readFileSync } from 'node:fs';

/**
 * Whether a process still runs. A zombie (exited, waiting for a reaper that is not ours) counts as ended,
 * which `kill -0` would not tell.
 */
export function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
