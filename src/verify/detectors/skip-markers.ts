import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import { type CheatDetector, finding, newLines, withLanguage } from './cheat-detector.js';

/** `.skip`, `.only`, `xit`, `@pytest.mark.skip`, `#[ignore]`, `t.Skip`, `@Disabled`, … added anywhere. */
export const skipMarkers: CheatDetector = {
  rule: 'skip-marker-added',
  summary: 'skip, only, focus and todo markers added to tests',
  detect(change: ChangeSet): Finding[] {
    const findings: Finding[] = [];
    for (const { file, lang } of change.files.map(withLanguage).filter((x) => x !== undefined)) {
      for (const l of newLines(change, file)) {
        if (lang.comment.test(l.text)) continue;
        const marker = lang.skipMarkers.map((p) => p.exec(l.text)?.[0]).find(Boolean);
        if (marker)
          findings.push(
            finding(
              'skip-marker-added',
              file.path,
              l.line,
              `added \`${marker.trim()}\`: a test that does not run cannot fail`,
            ),
          );
      }
    }
    return findings;
  },
};
