import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One iteration folder under `.star/runs/` and the bytes its files hold. */
export interface RunFolder {
  name: string;
  bytes: number;
}

/**
 * The iteration folders to remove (pure), newest kept first: a folder goes once `keep` newer folders are
 * kept or it would take the kept ones past `maxBytes`; every one in `evidence` (an iteration the report
 * points to: a safety stop, an accepted claim) stays, and its bytes count first.
 */
export function runsToPrune(
  folders: readonly RunFolder[],
  keep: number,
  maxBytes: number,
  evidence: ReadonlySet<number>,
): string[] {
  const numbered = folders.filter((f) => /^\d{4,}$/.test(f.name)).sort((a, b) => Number(b.name) - Number(a.name));
  const isEvidence = (f: RunFolder) => evidence.has(Number(f.name));
  const gone: string[] = [];
  let kept = 0;
  let bytes = numbered.filter(isEvidence).reduce((sum, f) => sum + f.bytes, 0);
  for (const folder of numbered.filter((f) => !isEvidence(f))) {
    if (kept < keep && bytes + folder.bytes <= maxBytes) {
      kept++;
      bytes += folder.bytes;
    } else gone.push(folder.name);
  }
  return gone;
}

/** The bytes of the files under `dir` (a folder's files never change once its iteration ended: cached). */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/**
 * Keeps `.star/runs/` bounded by count (`keepRuns`) and size (`keepRunsMb`): removes the oldest iteration
 * folders past either bound, keeping the report's evidence. Sizes of finished folders are measured once.
 */
export class RunPruner {
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly runsDir: string,
    private readonly keep: number,
    private readonly maxBytes: number,
  ) {}

  /** Called before a new iteration's folder is made: every folder there is finished. */
  async prune(evidence: ReadonlySet<number>, room = 1): Promise<string[]> {
    const names = (await readdir(this.runsDir).catch(() => [] as string[])).filter((f) => /^\d{4,}$/.test(f));
    const folders: RunFolder[] = [];
    for (const name of names) {
      let bytes = this.sizes.get(name);
      if (bytes === undefined) {
        bytes = await folderBytes(join(this.runsDir, name));
        this.sizes.set(name, bytes);
      }
      folders.push({ name, bytes });
    }
    const gone = runsToPrune(folders, this.keep - room, this.maxBytes, evidence);
    for (const folder of gone) {
      await rm(join(this.runsDir, folder), { recursive: true, force: true });
      this.sizes.delete(folder);
    }
    return gone;
  }
}
