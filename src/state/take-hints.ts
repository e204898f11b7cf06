import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { StarPaths } from './star-paths.js';

/**
 * Steering without stopping: text a human appended to `.star/hints.md` goes to the next iteration once, and
 * the file moves to `.star/hints/NNNN.md` so it is not given twice.
 */
export async function takeHints(paths: StarPaths, iteration: number): Promise<string | undefined> {
  const text = await readFile(paths.hints, 'utf8').catch(() => undefined);
  if (!text?.trim()) return undefined;
  await mkdir(paths.hintsArchive, { recursive: true });
  await rename(paths.hints, join(paths.hintsArchive, `${String(iteration).padStart(4, '0')}.md`));
  return text.trim();
}
