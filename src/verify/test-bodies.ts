import { languageOf } from './languages/index.js';

export interface TestBody {
  /** The test's own name as declared (no suites). */
  name: string;
  /** Its body's meaningful lines, trimmed (no blank lines, no lines of brackets alone). */
  lines: string[];
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const meaningful = (line: string) => line.trim() !== '' && !/^[\s{}()[\];,]*$/.test(line);

/** The name a declaration line gives (the last group its pattern captured), if any. */
function declared(line: string, patterns: readonly RegExp[]): string | undefined {
  for (const pattern of patterns) {
    const m = pattern.exec(line);
    if (m)
      return (
        [...m]
          .slice(1)
          .reverse()
          .find((g) => g !== undefined && g !== '' && !/^['"`]$/.test(g)) ?? ''
      );
  }
  return undefined;
}

/**
 * The tests declared in a file, each with its body: the lines after its declaration up to the first line
 * indented no deeper than the declaration (a closing `});`, a dedent in Python). Language-aware through the
 * declaration patterns of src/verify/languages; pure.
 */
export function testBodies(path: string, text: string): TestBody[] {
  const language = languageOf(path);
  if (!language) return [];
  const lines = text.split('\n');
  const out: TestBody[] = [];
  lines.forEach((line, i) => {
    const name = declared(line, language.testCase);
    if (name === undefined) return;
    const indent = indentOf(line);
    const body: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] ?? '';
      if (next.trim() !== '' && indentOf(next) <= indent) break;
      if (meaningful(next)) body.push(next.trim());
    }
    out.push({ name, lines: body });
  });
  return out;
}

/**
 * Whether a test's body lives on in another test: every meaningful line of it, in order, inside the other's
 * body (a rename keeps them all; a merge keeps each merged test's lines in sequence). An empty body matches
 * nothing: it proves nothing.
 */
export function bodyLivesIn(body: readonly string[], other: readonly string[]): boolean {
  if (body.length === 0) return false;
  let at = 0;
  for (const line of other) if (line === body[at]) at++;
  return at >= body.length;
}
