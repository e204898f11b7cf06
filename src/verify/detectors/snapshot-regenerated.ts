import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import { isSnapshotFile, isTestFile } from '../languages/index.js';
import { type CheatDetector, finding } from './cheat-detector.js';

/** Snapshots rewritten with no test change to explain them: `-u` until the suite is green. */
export const snapshotRegenerated: CheatDetector = {
  rule: 'snapshot-regenerated',
  summary: 'snapshot files regenerated with no test change explaining it',
  detect(change: ChangeSet): Finding[] {
    const snapshots = change.files.filter((f) => isSnapshotFile(f.path) && f.status !== 'A');
    const testsChanged = change.files.some((f) => !isSnapshotFile(f.path) && isTestFile(f.path));
    if (snapshots.length === 0 || testsChanged) return [];
    return snapshots.map((f) =>
      finding(
        'snapshot-regenerated',
        f.path,
        f.added[0]?.line,
        'snapshot rewritten with no change to the tests that explain it',
      ),
    );
  },
};
