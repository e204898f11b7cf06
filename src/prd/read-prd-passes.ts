import { readFile } from 'node:fs/promises';
import { type LoadedPrd, parsePrd } from './load-prd.js';

/** prd.json as it is on disk now, or why it cannot be read. */
export async function readPrdNow(file: string): Promise<{ loaded?: LoadedPrd; error?: string }> {
  try {
    const text = await readFile(file, 'utf8');
    return { loaded: { file, text, prd: parsePrd(file, text) } };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** `id → passes` for every story. */
export function passesMap(loaded: LoadedPrd): Map<string, boolean> {
  return new Map(loaded.prd.userStories.map((s) => [s.id, s.passes]));
}
