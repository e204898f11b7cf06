import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The iteration folders to remove (pure): all but the newest `keep`, never one in `evidence` (an iteration
 * the report points to: a safety stop, an accepted claim).
 */
export function runsToPrune(folders: readonly string[], keep: number, evidence: ReadonlySet<number>): string[] {
  const numbered = folders.filter((f) => /^\d{4,}$/.test(f)).sort((a, b) => Number(b) - Number(a));
  return numbered.slice(Math.max(0, keep)).filter((f) => !evidence.has(Number(f)));
}

/** Removes old iteration folders under `.star/runs/` past `keep` (`keepRuns`), keeping the report's evidence. */
export async function pruneRuns(runsDir: string, keep: number, evidence: ReadonlySet<number>): Promise<string[]> {
  const folders = await readdir(runsDir).catch(() => []);
  const gone = runsToPrune(folders, keep, evidence);
  for (const folder of gone) await rm(join(runsDir, folder), { recursive: true, force: true });
  return gone;
}
