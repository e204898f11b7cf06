/** Errors of a machine that cannot take a write: the disk full, a quota, a read-only or unwritable place. */
const DISK_CODES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'an input/output error',
};

/** What a disk error means and what to do, or undefined for any other error. Pure. */
export function diskProblem(error: unknown): { what: string; fix: string } | undefined {
  const e = error as NodeJS.ErrnoException | undefined;
  const meaning = e?.code ? DISK_CODES[e.code] : undefined;
  if (!meaning) return undefined;
  const where = e?.path ? ` writing ${e.path}` : '';
  return {
    what: `${meaning} (${e?.code})${where}`,
    fix:
      e?.code === 'ENOSPC' || e?.code === 'EDQUOT'
        ? 'free some space (what the agent wrote is still there for you to look at), then `star-loop resume`'
        : 'make the repository and its .star folder writable, then `star-loop resume`',
  };
}
