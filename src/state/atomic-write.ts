import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Write, fsync, rename: a reader (or a runner restarted after a crash) sees the old file or the new one,
 * never half of either.
 */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } catch (error) {
    // A write that failed (the disk full) leaves nothing behind: the old file stands.
    await handle.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(tmp, file);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}
