import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import { isSnapshotFile, isTestFile } from '../languages/index.js';
import { type CheatDetector, finding } from './cheat-detector.js';

const ABOUT_TESTS = /\b(tests?|specs?|testing|coverage|test suite)\b/i;

/** A feature claimed done whose change touches only test files (and the work was not about tests). */
export const testsOnly: CheatDetector = {
  rule: 'implemented-in-tests-only',
  summary: 'the feature implemented only in test files',
  detect(change: ChangeSet): Finding[] {
    if (change.files.length === 0 || ABOUT_TESTS.test(change.intent)) return [];
    if (!change.files.every((f) => isTestFile(f.path) || isSnapshotFile(f.path))) return [];
    return [
      finding(
        'implemented-in-tests-only',
        change.files[0]?.path ?? '',
        undefined,
        'only test files changed: the feature is not in the source',
      ),
    ];
  },
};
