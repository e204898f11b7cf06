import { constants } from 'node:fs';
import { access, lstat, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';

/**
 * Makes `.star/` (and `sub`, a folder inside it) with its `.gitignore` of `*`: star-loop's state never shows
 * up as a change in the repository, and never goes into a commit. A `.star` that is not a folder — a file,
 * a symlink (dangling or not: star-loop's state never goes somewhere else) — is the user's to move: bad input,
 * exit 2, never touched.
 */
export async function prepareStarDir(starDir: string, sub?: string): Promise<void> {
  const found = await lstat(starDir).catch(() => undefined);
  if (found && !found.isDirectory()) {
    const what = found.isSymbolicLink() ? 'a symbolic link' : 'a file';
    throw new InputError(
      `${starDir} is ${what}, not star-loop's state folder`,
      `move it away (star-loop never deletes or follows it), then run again: \`mv .star .star.old\``,
    );
  }
  try {
    // A read-only .star makes a recursive mkdir fail with ENOENT: ask first, for the real reason.
    if (found) await access(starDir, constants.W_OK);
    await mkdir(sub ? join(starDir, sub) : starDir, { recursive: true });
    await writeFile(join(starDir, '.gitignore'), '# star-loop state: never committed\n*\n');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC' || code === 'ENOTDIR' || code === 'EPERM')
      throw new InputError(
        `cannot write star-loop's state in ${starDir}: ${code} (${(error as Error).message})`,
        code === 'ENOSPC' ? 'free some disk space, then run again' : 'make the folder writable, then run again',
      );
    throw error;
  }
}
