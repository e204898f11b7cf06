import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet } from '../change-set.js';
import { isTestFile, languageOf } from '../languages/index.js';
import { type CheatDetector, finding } from './cheat-detector.js';

interface Case {
  name: string;
  file: string;
  line: number;
}

/** Test cases declared in a file, by name where the language gives one. */
export function testCases(path: string, text: string | undefined): Case[] {
  const lang = languageOf(path);
  if (!lang || text === undefined) return [];
  const cases: Case[] = [];
  text.split('\n').forEach((line, i) => {
    for (const pattern of lang.testCase) {
      const m = pattern.exec(line);
      if (m) cases.push({ name: m[m.length - 1] ?? `@${i + 1}`, file: path, line: i + 1 });
    }
  });
  return cases;
}

/**
 * Test files deleted or renamed away from being tests, and test cases that disappeared. Cases are compared
 * across every changed test file, so tests moved between files (a split, a rename) still count as kept.
 */
export const testRemoval: CheatDetector = {
  rule: 'test-removed',
  summary: 'test files deleted or renamed away; test cases removed',
  detect(change: ChangeSet): Finding[] {
    const findings: Finding[] = [];
    const before: Case[] = [];
    const after: Case[] = [];
    for (const f of change.files) {
      const oldPath = f.oldPath ?? f.path;
      const wasTest = f.status !== 'A' && isTestFile(oldPath);
      const isTest = f.status !== 'D' && isTestFile(f.path);
      if (wasTest && !isTest) {
        const how = f.status === 'D' ? 'deleted' : `renamed to ${f.path}, which is not a test file`;
        findings.push(finding('test-file-removed', oldPath, undefined, `test file ${oldPath} was ${how}`));
        continue;
      }
      if (wasTest) before.push(...testCases(oldPath, f.before));
      if (isTest) after.push(...testCases(f.path, f.after));
    }
    const remaining = new Map<string, number>();
    for (const c of after) remaining.set(c.name, (remaining.get(c.name) ?? 0) + 1);
    for (const c of before) {
      const left = remaining.get(c.name) ?? 0;
      if (left > 0) remaining.set(c.name, left - 1);
      else
        findings.push(
          finding(
            'test-case-removed',
            c.file,
            c.line,
            `test case "${c.name}" was removed (${before.length} cases before, ${after.length} after in the ` +
              `changed test files)`,
          ),
        );
    }
    return findings;
  },
};
