import { appendFile, type FileHandle, open } from 'node:fs/promises';

/** About 15 entries: full by iteration ~15, so the prompt at iteration 200 is the size of iteration 20's. */
export const JOURNAL_TAIL_BYTES = 2000;

/** Appends one entry to `.star/journal.md` (append-only; one short entry per iteration). */
export async function appendJournal(file: string, entry: string): Promise<void> {
  await appendFile(file, `${entry.trimEnd()}\n\n`, 'utf8');
}

/**
 * The last `maxBytes` of the journal, starting at an entry boundary. Reads only the tail, so the cost
 * and the prompt stay the same at iteration 1000 as at iteration 10.
 */
export async function readJournalTail(file: string, maxBytes = JOURNAL_TAIL_BYTES): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return cutToEntry(buffer.toString('utf8'), length < size);
  } finally {
    await handle.close();
  }
}

/** Drops a partial first entry when the tail starts mid-file. */
export function cutToEntry(text: string, cut: boolean): string {
  if (!cut) return text.trim();
  const start = text.indexOf('\n## ');
  return start === -1 ? '' : text.slice(start + 1).trim();
}
