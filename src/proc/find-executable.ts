import { accessSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

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

/** Whether `name` is an executable on `path`, synchronously: recon asks about every program its gates run. */
export function isOnPath(name: string, path = process.env.PATH ?? ''): boolean {
  return path
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .some((dir) => {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}
