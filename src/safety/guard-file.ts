import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { parseJson } from '../util/parse-json.js';
import type { GuardSnapshot } from './check-safety.js';

/**
 * Where the snapshot taken before an agent run is kept: beside the evidence store, outside the repository
 * (a sandboxed agent cannot reach it), so a runner killed during the run can be checked on resume against
 * what it saw before the agent started.
 */
export function guardFile(evidenceDir: string, runId: string, iteration: number): string {
  return join(evidenceDir, 'star-loop-guard', `${runId}-${iteration}.json`);
}

type Entries = Array<[string, string]>;
interface Stored {
  head?: string;
  remotes?: { tracking: Entries; local: Array<[string, Entries]> };
  fingerprints: { files: Entries; prd?: Entries };
  protectedFiles: Entries;
}

export async function writeGuardFile(file: string, snapshot: GuardSnapshot): Promise<void> {
  const stored: Stored = {
    head: snapshot.head,
    remotes: snapshot.remotes && {
      tracking: [...snapshot.remotes.tracking],
      local: [...snapshot.remotes.local].map(([name, refs]) => [name, [...refs]]),
    },
    fingerprints: {
      files: [...snapshot.fingerprints.files],
      prd: snapshot.fingerprints.prd && [...snapshot.fingerprints.prd],
    },
    protectedFiles: [...snapshot.protectedFiles],
  };
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(stored));
}

/** The snapshot as it was written, or undefined when there is none (or it cannot be read). */
export async function readGuardFile(file: string): Promise<GuardSnapshot | undefined> {
  try {
    const stored = parseJson(await readFile(file, 'utf8')) as Stored;
    return {
      head: stored.head,
      remotes: stored.remotes && {
        tracking: new Map(stored.remotes.tracking),
        local: new Map(stored.remotes.local.map(([name, refs]) => [name, new Map(refs)])),
      },
      fingerprints: {
        files: new Map(stored.fingerprints.files),
        prd: stored.fingerprints.prd && new Map(stored.fingerprints.prd),
      },
      protectedFiles: new Map(stored.protectedFiles),
    };
  } catch {
    return undefined;
  }
}
