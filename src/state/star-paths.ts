import { join } from 'node:path';
import { STAR_DIR } from '../git/parse-git-output.js';

/** Every file star-loop keeps, in one place: the `.star/` layout documented in docs/files.md. */
export function starPaths(root: string) {
  const dir = join(root, STAR_DIR);
  return {
    dir,
    gitignore: join(dir, '.gitignore'),
    state: join(dir, 'state.json'),
    /** `star-loop fleet`: the queue and its workers (fleet.json), worker logs and finished workers' state. */
    fleet: join(dir, 'fleet.json'),
    fleetDir: join(dir, 'fleet'),
    lock: join(dir, 'lock'),
    pendingForHuman: join(dir, 'pending_for_human.md'),
    hints: join(dir, 'hints.md'),
    hintsArchive: join(dir, 'hints'),
    journal: join(dir, 'journal.md'),
    claim: join(dir, 'claim.json'),
    plan: join(dir, 'plan.md'),
    log: join(dir, 'log.jsonl'),
    reportMd: join(dir, 'report.md'),
    reportJson: join(dir, 'report.json'),
    runs: join(dir, 'runs'),
    iterationDir: (n: number) => join(dir, 'runs', String(n).padStart(4, '0')),
  };
}

export type StarPaths = ReturnType<typeof starPaths>;
