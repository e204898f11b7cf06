import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet, FileChange } from '../change-set.js';
import { type Language, languageOf } from '../languages/index.js';

/**
 * One deterministic check for faked success, run on the diff of the claimed work. Each names the file, the
 * line and its rule. Adding a check: one file in this folder and one line in `index.ts`.
 */
export interface CheatDetector {
  rule: string;
  summary: string;
  detect(change: ChangeSet): Finding[];
}

export function finding(rule: string, file: string, line: number | undefined, detail: string): Finding {
  return { rule, file, line, detail };
}

/** Comment-free, whitespace-folded text: lines that only moved are not new. */
export function norm(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/** Added lines that do not merely move an identical removed line elsewhere in the change. */
export function newLines(change: ChangeSet, file: FileChange): FileChange['added'] {
  const removed = new Set(change.files.flatMap((f) => f.removed.map((l) => norm(l.text))));
  return file.added.filter((l) => !removed.has(norm(l.text)));
}

export function withLanguage(file: FileChange): { file: FileChange; lang: Language } | undefined {
  const lang = languageOf(file.path);
  return lang ? { file, lang } : undefined;
}
