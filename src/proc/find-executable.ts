import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The first executable named `name` on PATH, like `command -v`, without spawning a shell. */
export async function findExecutable(name: string, path = process.env.PATH ?? ''): Promise<string | undefined> {
  if (name.includes('/')) return (await isExecutable(name)) ? name : undefined;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
