import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** `ref → commit` from a packed-refs file's text (pure): peeled lines (`^…`) and the header are left out. */
export function parsePackedRefs(text: string, prefix: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#') || line.startsWith('^')) continue;
    const [id, ref] = line.split(' ');
    if (id && ref?.startsWith(prefix) && OBJECT_ID.test(id)) refs.set(ref, id);
  }
  return refs;
}

async function looseRefs(commonDir: string, dir: string, out: Map<string, string>, symbolic: Map<string, string>) {
  for (const entry of await readdir(join(commonDir, dir), { withFileTypes: true }).catch(() => [])) {
    const ref = `${dir}/${entry.name}`;
    if (entry.isDirectory()) await looseRefs(commonDir, ref, out, symbolic);
    else if (entry.isFile()) {
      const text = (await readFile(join(commonDir, ref), 'utf8').catch(() => '')).trim();
      if (OBJECT_ID.test(text)) out.set(ref, text);
      else if (text.startsWith('ref: ')) symbolic.set(ref, text.slice(5).trim());
    }
  }
}

/**
 * Every ref under `prefix` (`refs/remotes/`) and its object, read from the files git keeps them in — loose
 * refs over packed-refs, symbolic refs resolved — with no git process: this runs twice an iteration.
 * Undefined where the files cannot answer (the reftable backend): ask git then.
 */
export async function readRefs(commonDir: string, prefix: string): Promise<Map<string, string> | undefined> {
  const config = await readFile(join(commonDir, 'config'), 'utf8').catch(() => '');
  if (/refstorage\s*=\s*reftable/i.test(config)) return undefined;
  const packed = await readFile(join(commonDir, 'packed-refs'), 'utf8').catch(() => '');
  const refs = parsePackedRefs(packed, prefix);
  const symbolic = new Map<string, string>();
  await looseRefs(commonDir, prefix.replace(/\/$/, ''), refs, symbolic);
  for (const [ref, target] of symbolic) {
    const id = refs.get(target) ?? parsePackedRefs(packed, target).get(target);
    if (id) refs.set(ref, id);
  }
  return new Map([...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
