import { mkdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StarPaths } from './star-paths.js';

/** Hints for the next iteration, and whether they can be a human's. */
export interface Hints {
  text: string;
  /**
   * False when an agent could have written them: `.star/hints.md` changed since an agent last started, in a
   * run without the sandbox (in the sandbox an agent's `.star` is a scratch of its own and never this file).
   */
  fromHuman: boolean;
}

/**
 * Steering without stopping: text a human appended to `.star/hints.md` goes to the next iteration once, and
 * the file moves to `.star/hints/NNNN.md` so it is not given twice. `agentsCanWrite`: when the last agent
 * started (epoch ms), in a run whose agents can write `.star` (--sandbox off); undefined otherwise. The file's
 * change time (ctime, which no program can set back) tells whether it changed since.
 */
export async function takeHints(
  paths: StarPaths,
  iteration: number,
  agentsCanWriteSince?: number,
): Promise<Hints | undefined> {
  const text = await readFile(paths.hints, 'utf8').catch(() => undefined);
  if (!text?.trim()) return undefined;
  const changed = (await stat(paths.hints)).ctimeMs;
  await mkdir(paths.hintsArchive, { recursive: true });
  await rename(paths.hints, join(paths.hintsArchive, `${String(iteration).padStart(4, '0')}.md`));
  return { text: text.trim(), fromHuman: agentsCanWriteSince === undefined || changed < agentsCanWriteSince };
}
