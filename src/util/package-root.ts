import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * star-loop's own folder (where its package.json, `prompts/` and `dist/` are), found upwards from this
 * module's file: the same from `src/` under tsx or vitest, from the bundle's chunks in `dist/`, and from an
 * installed package, whatever depth the file that asks ends up at.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  root = dir;
  return dir;
}

/** A file shipped with star-loop, by its path from the package's folder (`prompts/`, `dist/…`). */
export function packageFile(path: string): string {
  return join(packageRoot(), path);
}
