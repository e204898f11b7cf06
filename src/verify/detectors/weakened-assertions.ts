import type { DiffLine } from '../../git/parse-unified-diff.js';
import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet, FileChange } from '../change-set.js';
import { isSnapshotFile, isTestFile, type Language, languageOf } from '../languages/index.js';
import { type CheatDetector, finding, newLines, norm } from './cheat-detector.js';

interface Expectation {
  subject: string;
  matcher: string;
  expected: string;
}

function expectationOf(lang: Language, text: string): Expectation | undefined {
  for (const pattern of lang.expectation) {
    const g = pattern.exec(text)?.groups;
    if (g) return { subject: norm(g.subject ?? ''), matcher: g.matcher ?? '', expected: norm(g.expected ?? '') };
  }
  return undefined;
}

function countAssertions(lang: Language, text: string): number {
  return (text.match(new RegExp(lang.assertion.source, lang.assertion.flags)) ?? []).length;
}

/** Assertions per named test case: the lines from one case's declaration to the next. */
function assertionsByCase(
  lang: Language,
  path: string,
  text: string | undefined,
  into: Map<string, { count: number; file: string; line: number }>,
): void {
  if (text === undefined) return;
  const lines = text.split('\n');
  let current: { name: string; line: number; body: string[] } | undefined;
  const flush = () => {
    if (!current) return;
    const seen = into.get(current.name);
    into.set(current.name, {
      count: (seen?.count ?? 0) + countAssertions(lang, current.body.join('\n')),
      file: path,
      line: current.line,
    });
  };
  lines.forEach((line, i) => {
    const m = lang.testCase.map((p) => p.exec(line)).find(Boolean);
    const name = m?.[m.length - 1];
    if (m && name) {
      flush();
      current = { name, line: i + 1, body: [line] };
    } else current?.body.push(line);
  });
  flush();
}

/** Tolerances, and which direction is "wider": digits and places shrink, deltas and epsilons grow. */
const TOLERANCES: Array<{ pattern: RegExp; wider: (before: number, after: number) => boolean }> = [
  { pattern: /toBeCloseTo\([^,]+,\s*(\d+)/, wider: (b, a) => a < b },
  { pattern: /\bplaces\s*=\s*(\d+)/, wider: (b, a) => a < b },
  {
    pattern: /\b(?:rel|abs|delta|epsilon|eps|tol|tolerance|rtol|atol)\s*[=:]\s*([\d.]+(?:e-?\d+)?)/i,
    wider: (b, a) => a > b,
  },
  { pattern: /abs\(.*\)\s*<=?\s*([\d.]+(?:e-?\d+)?)/i, wider: (b, a) => a > b },
];

function skeleton(text: string): string {
  return norm(text).replace(/\d+(\.\d+)?(e-?\d+)?/g, '#');
}

function pairs(
  file: FileChange,
  lang: Language,
): Array<{ removed: DiffLine; added: DiffLine; before: Expectation; after: Expectation }> {
  const out: Array<{ removed: DiffLine; added: DiffLine; before: Expectation; after: Expectation }> = [];
  const removed = file.removed.map((l) => ({ l, e: expectationOf(lang, l.text) })).filter((x) => x.e);
  for (const added of file.added) {
    const after = expectationOf(lang, added.text);
    if (!after) continue;
    const match = removed.find((r) => r.e?.subject === after.subject);
    if (match?.e) out.push({ removed: match.l, added, before: match.e, after });
  }
  return out;
}

/**
 * Assertions removed (fewer in a test case than before), made tautological, downgraded to a weaker
 * matcher, their expected values edited while no code changed, or their tolerances widened.
 */
export const weakenedAssertions: CheatDetector = {
  rule: 'assertion-weakened',
  summary: 'assertions removed, tautological, weakened, expected values edited to fit, tolerances widened',
  detect(change: ChangeSet): Finding[] {
    const findings: Finding[] = [];
    const codeChanged = change.files.some((f) => languageOf(f.path) && !isTestFile(f.path) && !isSnapshotFile(f.path));
    const before = new Map<string, { count: number; file: string; line: number }>();
    const after = new Map<string, { count: number; file: string; line: number }>();
    for (const file of change.files) {
      const lang = languageOf(file.path) ?? languageOf(file.oldPath ?? '');
      if (!lang) continue;
      const wasTest = file.status !== 'A' && isTestFile(file.oldPath ?? file.path);
      const isTest = file.status !== 'D' && isTestFile(file.path);
      // A test file deleted or renamed away is the test-removal detector's finding.
      if (wasTest && !isTest) continue;
      if (wasTest) assertionsByCase(lang, file.oldPath ?? file.path, file.before, before);
      if (isTest) assertionsByCase(lang, file.path, file.after, after);
      if (!isTest) continue;
      for (const l of newLines(change, file)) {
        const tautology = lang.tautologies.find((p) => p.test(l.text));
        if (tautology)
          findings.push(finding('tautological-assertion', file.path, l.line, `\`${l.text.trim()}\` cannot fail`));
      }
      for (const { added, before: was, after: now } of pairs(file, lang)) {
        if (!lang.weakMatcher.test(was.matcher) && lang.weakMatcher.test(now.matcher)) {
          findings.push(
            finding(
              'assertion-weakened',
              file.path,
              added.line,
              `\`${was.matcher || 'equality'}\` on ${now.subject} became \`${now.matcher || 'a truthiness check'}\``,
            ),
          );
        } else if (
          !codeChanged &&
          was.matcher === now.matcher &&
          was.expected !== now.expected &&
          !TOLERANCES.some((t) => t.pattern.test(added.text))
        ) {
          findings.push(
            finding(
              'expected-value-changed',
              file.path,
              added.line,
              `the expected value of ${now.subject} changed from ${was.expected} to ${now.expected}, and no code ` +
                `changed: the test was bent to fit the code`,
            ),
          );
        }
      }
      for (const added of file.added) {
        for (const { pattern, wider } of TOLERANCES) {
          const a = pattern.exec(added.text);
          if (!a) continue;
          const removed = file.removed.find((r) => skeleton(r.text) === skeleton(added.text));
          const b = removed && pattern.exec(removed.text);
          if (b && wider(Number(b[1]), Number(a[1]))) {
            findings.push(
              finding('tolerance-widened', file.path, added.line, `tolerance widened from ${b[1]} to ${a[1]}`),
            );
          }
        }
      }
    }
    // Per test case, by name, so tests moved between files keep their assertions; a case that is gone
    // altogether is the test-removal detector's finding.
    for (const [name, was] of before) {
      const now = after.get(name);
      if (now && now.count < was.count) {
        findings.push(
          finding(
            'assertions-removed',
            now.file,
            now.line,
            `test "${name}" has ${now.count} assertion(s), ${was.count} before`,
          ),
        );
      }
    }
    return findings;
  },
};
