import { readFile } from 'node:fs/promises';
import type * as z from 'zod';
import { ExitCode, StarError } from '../errors.js';
import { ONE_OFF_PARSE } from '../util/one-off-parse.js';
import { parseJson } from '../util/parse-json.js';
import { writeFileAtomic } from './atomic-write.js';
import { STATE_SCHEMA_VERSION } from './schema-versions.js';
import type { RunState } from './state-schema.js';

/** Reads `.star/state.json`; undefined when absent. A corrupt or newer file is an error, never overwritten. */
export async function readState(file: string): Promise<RunState | undefined> {
  // Built only when there is a state to read: a new run, or `--dry-run` before one, never needs it.
  const schema = async () => (await import('./state-schema.js')).runStateSchema;
  return readStateFile(file, schema, STATE_SCHEMA_VERSION);
}

/**
 * A versioned state file of star-loop's (`state.json`, `fleet.json`), read with the same care. `schema`: the
 * schema, or a function that loads it once a file is there.
 */
export async function readStateFile<T>(
  file: string,
  schema: z.ZodType<T> | (() => Promise<z.ZodType<T>>),
  schemaVersion: number,
): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new StarError(
      `${file}: cannot be read (${code})`,
      ExitCode.Usage,
      'make it a readable file, or move it aside',
    );
  }
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch {
    throw new StarError(
      `${file}: not valid JSON — the run state is corrupt`,
      ExitCode.Usage,
      `move it aside (e.g. \`mv ${file} ${file}.bad\`) to start a new run; star-loop will not overwrite it`,
    );
  }
  const version = (raw as { schemaVersion?: unknown })?.schemaVersion;
  if (typeof version === 'number' && version > schemaVersion) {
    throw new StarError(
      `${file}: written by a newer star-loop (state schema ${version}, this one reads ${schemaVersion})`,
      ExitCode.Usage,
      'upgrade star-loop, or move the file aside to start a new run',
    );
  }
  const parsed = (typeof schema === 'function' ? await schema() : schema).safeParse(raw, ONE_OFF_PARSE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StarError(
      `${file}: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'} — the run state is corrupt`,
      ExitCode.Usage,
      `move it aside (e.g. \`mv ${file} ${file}.bad\`) to start a new run; star-loop will not overwrite it`,
    );
  }
  return parsed.data;
}

export async function writeState(file: string, state: RunState | object): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}
