import type { Finding } from '../../state/finding-schema.js';
import type { ChangeSet, FileChange } from '../change-set.js';
import { isSnapshotFile, isTestFile, type Language, languageOf } from '../languages/index.js';
import { type CheatDetector, finding, newLines } from './cheat-detector.js';

const TODO = /\b(TODO|FIXME|XXX)\b/;
const TRIVIAL = new Set([
  '0',
  '1',
  '-1',
  'true',
  'false',
  'null',
  'undefined',
  'None',
  'True',
  'False',
  'nil',
  "''",
  '""',
  '[]',
  '{}',
]);
const indent = (line: string) => line.search(/\S/);

interface Body {
  header: number;
  name: string;
  params: string;
  statements: string[];
  comments: string[];
}

/** The function bodies whose header the change added, read from the file after the change. */
function addedFunctions(file: FileChange, lang: Language): Body[] {
  const lines = (file.after ?? '').split('\n');
  const bodies: Body[] = [];
  for (const { line } of file.added) {
    const header = lines[line - 1] ?? '';
    const m = lang.functionHeader.exec(header);
    if (!m) continue;
    const name = /(\w+)\s*(?:<[^>]*>)?\s*(?:=\s*(?:async\s*)?)?\(/.exec(header)?.[1] ?? '';
    const decorator = lines[line - 2] ?? '';
    if (
      /^(constructor|noop|__init__|if|for|while|switch|catch|with|return|function)$/.test(name) ||
      /@(abstractmethod|overload|abc\.abstractmethod)/.test(decorator)
    )
      continue;
    const statements: string[] = [];
    const comments: string[] = [];
    if (!/\{\s*\}\s*;?\s*$/.test(header)) {
      for (let i = line; i < lines.length; i++) {
        const text = lines[i] ?? '';
        if (!text.trim()) continue;
        if (indent(text) <= indent(header)) break;
        if (lang.comment.test(text) || /^\s*("""|''')/.test(text)) comments.push(text.trim());
        else if (!/^\s*[{}]\s*[;)]*\s*$/.test(text)) statements.push(text.trim());
      }
    }
    bodies.push({ header: line, name, params: (m[1] ?? '').trim(), statements, comments });
  }
  return bodies;
}

/** Literals a test added expects: the values a hard-coded stub would return. */
function expectedLiterals(change: ChangeSet): Set<string> {
  const out = new Set<string>();
  for (const file of change.files.filter((f) => isTestFile(f.path))) {
    const lang = languageOf(file.path);
    if (!lang) continue;
    for (const l of file.added) {
      for (const pattern of lang.expectation) {
        const expected = pattern.exec(l.text)?.groups?.expected?.trim();
        if (expected && /^(-?\d+(\.\d+)?|'[^']+'|"[^"]+"|`[^`$]+`)$/.test(expected) && !TRIVIAL.has(expected))
          out.add(expected.replace(/^[`"]|[`"]$/g, "'"));
      }
    }
  }
  return out;
}

/**
 * Stubs standing in for behaviour in the code the claim touches: "not implemented" throws, bodies that are
 * empty or only `pass`, TODO placeholders with nothing real beside them, and functions that return the
 * exact literal a new test expects. A TODO comment next to real code is not a stub.
 */
export const stubs: CheatDetector = {
  rule: 'stub',
  summary: 'not-implemented throws, empty or placeholder bodies, hard-coded expected values',
  detect(change: ChangeSet): Finding[] {
    const findings: Finding[] = [];
    const expected = expectedLiterals(change);
    for (const file of change.files) {
      const lang = languageOf(file.path);
      if (!lang || isTestFile(file.path) || isSnapshotFile(file.path) || file.status === 'D') continue;
      for (const l of newLines(change, file)) {
        if (lang.notImplemented.some((p) => p.test(l.text))) {
          findings.push(
            finding('not-implemented-stub', file.path, l.line, `\`${l.text.trim()}\` stands in for the behaviour`),
          );
        }
      }
      for (const body of addedFunctions(file, lang)) {
        const placeholders = body.statements.every((s) => lang.placeholderStatement.test(s));
        if (body.statements.length === 0 || body.statements.every((s) => /^(pass|\.\.\.)$/.test(s))) {
          findings.push(
            finding('empty-function', file.path, body.header, `${body.name || 'a function'}() has an empty body`),
          );
        } else if (placeholders && body.comments.some((c) => TODO.test(c))) {
          findings.push(
            finding(
              'placeholder-body',
              file.path,
              body.header,
              `${body.name}() holds only a TODO and a placeholder: ${body.statements.join(' ')}`,
            ),
          );
        } else if (body.params && body.statements.length > 0) {
          const returns = body.statements.filter((s) => /^return\b/.test(s));
          const literal = (s: string) =>
            s
              .replace(/^return\s+/, '')
              .replace(/;$/, '')
              .trim()
              .replace(/^[`"]|[`"]$/g, "'");
          if (
            returns.length > 0 &&
            returns.length === body.statements.length &&
            returns.every((s) => expected.has(literal(s)))
          ) {
            findings.push(
              finding(
                'hardcoded-expected-value',
                file.path,
                body.header,
                `${body.name}() returns ${literal(returns[0] ?? '')}, exactly what the new test expects, whatever ` +
                  `its arguments`,
              ),
            );
          }
        }
      }
    }
    return findings;
  },
};
