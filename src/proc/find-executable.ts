import { accessSync, statSync } from 'node:fs';
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

/** Absolute paths found by `onPath`, by name and PATH. */
const found = new Map<string, string>();

/**
 * `name` as the absolute path of the first executable of that name in PATH's absolute folders, looked up
 * once per PATH, or `name` itself when none is found (the spawn then fails as it would). A bare name makes
 * every spawn try each folder of PATH in turn before the right one (ten failed execs on a machine with
 * version managers' shims first): star-loop starts git many times a run.
 */
export function onPath(name: string, path = process.env.PATH ?? ''): string {
  const key = `${name}\0${path}`;
  let hit = found.get(key);
  if (hit === undefined) {
    hit =
      path
        .split(delimiter)
        .filter((dir) => isAbsolute(dir))
        .map((dir) => join(dir, name))
        .find((file) => {
          try {
            accessSync(file, constants.X_OK);
            return statSync(file).isFile();
          } catch {
            return false;
          }
        }) ?? name;
    found.set(key, hit);
  }
  return hit;
}
