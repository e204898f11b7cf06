import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes `.star/` (and `sub`, a folder inside it) with its `.gitignore` of `*`: star-loop's state never shows
 * up as a change in the repository, and never goes into a commit.
 */
export async function prepareStarDir(starDir: string, sub?: string): Promise<void> {
  await mkdir(sub ? join(starDir, sub) : starDir, { recursive: true });
  await writeFile(join(starDir, '.gitignore'), '# star-loop state: never committed\n*\n');
}
