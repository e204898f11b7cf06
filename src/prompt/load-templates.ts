import { readdir, readFile } from 'node:fs/promises';
import { packageFile } from '../util/package-root.js';
import type { Templates } from './render-template.js';

/** The `prompts/` folder shipped with the package (beside `dist/`). */
export const PROMPTS_DIR = packageFile('prompts/');

/** Loads every template once per run: `implement-prd.md` becomes the template named `implement-prd`. */
export async function loadTemplates(dir = PROMPTS_DIR): Promise<Templates> {
  const names = (await readdir(dir)).filter((f) => f.endsWith('.md'));
  const entries = await Promise.all(
    names.map(async (f) => [f.slice(0, -3), await readFile(`${dir}/${f}`, 'utf8')] as const),
  );
  return new Map(entries);
}
