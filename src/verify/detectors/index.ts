import type { CheatDetector } from './cheat-detector.js';
import { emptyClaim } from './empty-claim.js';
import { lintEscapes } from './lint-escapes.js';
import { skipMarkers } from './skip-markers.js';
import { snapshotRegenerated } from './snapshot-regenerated.js';
import { stubs } from './stubs.js';
import { testRemoval } from './test-removal.js';
import { testsOnly } from './tests-only.js';
import { weakenedAssertions } from './weakened-assertions.js';

/** Every cheat detector, in the order their findings are listed. */
export const cheatDetectors: readonly CheatDetector[] = [
  emptyClaim,
  testRemoval,
  skipMarkers,
  weakenedAssertions,
  snapshotRegenerated,
  lintEscapes,
  stubs,
  testsOnly,
];
