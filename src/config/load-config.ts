import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { zodProblems } from '../util/format-zod-issues.js';
import { ONE_OFF_PARSE } from '../util/one-off-parse.js';
import { parseJson } from '../util/parse-json.js';
import { configSchema, type StarConfig } from './config-schema.js';

export const CONFIG_FILE = 'star.config.json';

/** Reads star.config.json from the repository root; absent means no config, malformed is exit 2. */
export async function loadConfig(root: string): Promise<{ config: StarConfig; file?: string }> {
  const file = join(root, CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { config: {} };
    throw new InputError(`${CONFIG_FILE}: cannot be read (${code})`, 'make it a readable file, or remove it');
  }
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (error) {
    throw new InputError(
      `${CONFIG_FILE}: not valid JSON (${(error as Error).message})`,
      'fix the JSON syntax or remove the file',
    );
  }
  const parsed = configSchema.safeParse(raw, ONE_OFF_PARSE);
  if (!parsed.success) {
    const lines = zodProblems(parsed.error).map((p) => `${CONFIG_FILE}: ${p.path}: ${p.message}`);
    throw new InputError(lines.join('\n'), 'see docs/configuration.md for the keys star.config.json accepts');
  }
  return { config: parsed.data, file };
}
