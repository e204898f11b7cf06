import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import { isSnapshotFile, isTestFile } from '../languages/index.js';
import { type CheatDetector, finding } from './cheat-detector.js';

const KIND_HINT = ' (a story that is test work says "kind": "tests" in prd.json)';
const ABOUT_TESTS = /\b(tests?|specs?|testing|coverage|test suite)\b/i;

/**
 * A claim whose change touches only test files, for a story not marked `"kind": "tests"` in prd.json (a
 * description that mentions tests is not enough). In task mode, with no structure, the task's words decide.
 */
export const testsOnly: CheatDetector = {
  rule: 'implemented-in-tests-only',
  summary: 'the feature implemented only in test files',
  detect(change: ChangeSet): Finding[] {
    if (change.files.length === 0 || change.kind === 'tests') return [];
    if (change.kind === 'task' && ABOUT_TESTS.test(change.intent)) return [];
    if (!change.files.every((f) => isTestFile(f.path) || isSnapshotFile(f.path))) return [];
    return [
      finding(
        'implemented-in-tests-only',
        change.files[0]?.path ?? '',
        undefined,
        `only test files changed: the feature is not in the source${change.kind === 'task' ? '' : KIND_HINT}`,
      ),
    ];
  },
};
