import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import { type CheatDetector, finding, newLines, withLanguage } from './cheat-detector.js';

/** `eslint-disable`, `@ts-ignore`, `@ts-expect-error`, `# type: ignore`, `noqa`, `#[allow]`, `nolint`, … added. */
export const lintEscapes: CheatDetector = {
  rule: 'lint-escape-added',
  summary: 'lint and type-check escapes added',
  detect(change: ChangeSet): Finding[] {
    const findings: Finding[] = [];
    for (const { file, lang } of change.files.map(withLanguage).filter((x) => x !== undefined)) {
      for (const l of newLines(change, file)) {
        const silenced = lang.escapes.map((p) => p.exec(l.text)?.[0]).find(Boolean);
        if (silenced)
          findings.push(
            finding(
              'lint-escape-added',
              file.path,
              l.line,
              `added \`${silenced.trim()}\`: silencing a check is not passing it`,
            ),
          );
      }
    }
    return findings;
  },
};
