import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import type { CheatDetector } from './cheat-detector.js';

/** Nothing changed since the work started (prd.json and star-loop's own files aside): no diff, no pass. */
export const emptyClaim: CheatDetector = {
  rule: 'empty-claim',
  summary: 'nothing changed since the work started',
  detect(change: ChangeSet): Finding[] {
    return change.files.length === 0
      ? [
          {
            rule: 'empty-claim',
            detail: `no file changed between ${change.base.slice(0, 10)} and HEAD: there is nothing to accept`,
          },
        ]
      : [];
  },
};
