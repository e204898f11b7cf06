/** One mutant: a source file with one small change on one line the claim added or changed. */
export interface Mutant {
  path: string;
  line: number;
  /** What was changed, e.g. `* → /`, `return value → undefined`. */
  change: string;
  /** The whole file, mutated. */
  text: string;
}

type Family = 'js' | 'python' | 'c-like';

function familyOf(path: string): Family | undefined {
  if (/\.(c|m)?(j|t)sx?$/.test(path)) return 'js';
  if (/\.py$/.test(path)) return 'python';
  if (/\.(go|rs|java|kt|c|cc|cpp|h|hpp|cs|swift|php)$/.test(path)) return 'c-like';
  return undefined;
}

/**
 * The code part of a line with string literals and the trailing comment blanked out (same length), so an
 * operator is only ever found in code. Pure.
 */
export function codeOnly(line: string, family: Family): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (quote) {
      if (c === '\\') {
        out += '  ';
        i++;
        continue;
      }
      if (c === quote) {
        quote = undefined;
        out += c;
      } else out += ' ';
      continue;
    }
    if (c === '"' || c === "'" || (c === '`' && family === 'js')) {
      quote = c;
      out += c;
      continue;
    }
    const rest = line.slice(i);
    if (
      (family === 'python' && c === '#') ||
      (family !== 'python' && (rest.startsWith('//') || rest.startsWith('/*')))
    ) {
      return out + ' '.repeat(line.length - i);
    }
    out += c;
  }
  return out;
}

/** Operator swaps, each found only where it stands alone (not part of `=>`, `++`, `+=`, `**`, `->`, `<<`…). */
const SWAPS: Array<{ find: RegExp; to: string; families: Family[] }> = [
  { find: /===/, to: '!==', families: ['js'] },
  { find: /!==/, to: '===', families: ['js'] },
  { find: /(?<![=!<>])==(?!=)/, to: '!=', families: ['js', 'python', 'c-like'] },
  { find: /!=(?!=)/, to: '==', families: ['js', 'python', 'c-like'] },
  { find: /<=/, to: '>', families: ['js', 'python', 'c-like'] },
  { find: />=/, to: '<', families: ['js', 'python', 'c-like'] },
  { find: /(?<=\s)<(?=\s)/, to: '>=', families: ['js', 'python', 'c-like'] },
  { find: /(?<=\s)>(?=\s)/, to: '<=', families: ['js', 'python', 'c-like'] },
  { find: /&&/, to: '||', families: ['js', 'c-like'] },
  { find: /\|\|/, to: '&&', families: ['js', 'c-like'] },
  { find: /\band\b/, to: 'or', families: ['python'] },
  { find: /\bor\b/, to: 'and', families: ['python'] },
  { find: /(?<![+\-*/%=<>!&|^])\s\*\s(?![*=])/, to: ' / ', families: ['js', 'python', 'c-like'] },
  { find: /(?<![+\-*/%=<>!&|^])\s\/\s(?![/=])/, to: ' * ', families: ['js', 'python', 'c-like'] },
  { find: /(?<![+\-*/%=<>!&|^])\s\+\s(?![+=])/, to: ' - ', families: ['js', 'python', 'c-like'] },
  { find: /(?<![+\-*/%=<>!&|^])\s-\s(?![-=>])/, to: ' + ', families: ['js', 'python', 'c-like'] },
  { find: /\btrue\b/, to: 'false', families: ['js', 'c-like'] },
  { find: /\bfalse\b/, to: 'true', families: ['js', 'c-like'] },
  { find: /\bTrue\b/, to: 'False', families: ['python'] },
  { find: /\bFalse\b/, to: 'True', families: ['python'] },
];

/**
 * The lines (1-based) a multi-line string or block comment touches: a docstring's prose, a template
 * literal's text, a `/* … *\/` comment — never code to mutate. Tracked line by line, per family. Pure.
 */
export function proseLines(text: string, family: Family): Set<number> {
  const out = new Set<number>();
  const delimiters = family === 'python' ? ['"""', "'''"] : family === 'js' ? ['`'] : ['`'];
  let open: string | undefined;
  let comment = false;
  text.split('\n').forEach((line, i) => {
    const n = i + 1;
    if (family !== 'python') {
      let at = 0;
      const wasComment = comment;
      for (;;) {
        const next = comment ? line.indexOf('*/', at) : line.indexOf('/*', at);
        if (next === -1) break;
        comment = !comment;
        at = next + 2;
      }
      if (wasComment || comment) out.add(n);
    }
    const wasOpen = open !== undefined;
    for (const d of delimiters) {
      if (open !== undefined && open !== d) continue;
      const count = line.split(d).length - 1;
      if (count % 2 === 1) open = open === undefined ? d : undefined;
      if (count > 0 && family === 'python') out.add(n);
    }
    if (wasOpen || open !== undefined) out.add(n);
  });
  return out;
}

/** Mutants of one line, in order of how much they say (a replaced return value first). */
function lineMutants(line: string, family: Family): Array<{ change: string; text: string }> {
  const code = codeOnly(line, family);
  const out: Array<{ change: string; text: string }> = [];
  const ret = /^(\s*)return\s+(.+?);?\s*$/.exec(code);
  if (ret && family !== 'c-like' && !/^(undefined|None|null)$/.test(ret[2] ?? '')) {
    const empty = family === 'python' ? 'None' : 'undefined';
    out.push({ change: `return value → ${empty}`, text: `${ret[1]}return ${empty}${family === 'js' ? ';' : ''}` });
  }
  for (const { find, to, families } of SWAPS) {
    if (!families.includes(family)) continue;
    const m = find.exec(code);
    if (m?.index === undefined) continue;
    const text = line.slice(0, m.index) + to + line.slice(m.index + m[0].length);
    out.push({ change: `${m[0].trim()} → ${to.trim()}`, text });
  }
  const cond =
    family === 'python'
      ? /^(\s*)(if|elif|while)\s+(.+):\s*$/.exec(code)
      : /^(\s*)(if|while)\s*\((.+)\)\s*\{?\s*$/.exec(code);
  if (cond) {
    const [, indent, keyword, test] = cond;
    const text =
      family === 'python'
        ? `${indent}${keyword} not (${test}):`
        : `${indent}${keyword} (!(${test}))${code.trimEnd().endsWith('{') ? ' {' : ''}`;
    out.push({ change: `${keyword} condition negated`, text });
  }
  // Dropping a statement: a single-line call or assignment (never a line that opens or closes a block).
  const simple =
    family === 'js'
      ? /^\s*[\w.$[\]]+\s*(=|\+=|-=|\()[^{}]*;\s*$/
      : family === 'python'
        ? /^\s*[\w.[\]]+\s*(=|\+=|-=|\()[^:]*$/
        : undefined;
  if (simple?.test(code) && !/^\s*(return|const|let|var)\b/.test(code)) {
    out.push({ change: 'statement dropped', text: family === 'python' ? `${/^\s*/.exec(line)?.[0] ?? ''}pass` : '' });
  }
  return out;
}

/**
 * Mutants of the lines a claim added or changed in one source file: for each line its mutants, taken one
 * line after another (so a budget of N covers N lines before a second mutant of any line). Pure.
 */
export function mutantsOf(path: string, text: string, lines: readonly number[]): Mutant[] {
  const family = familyOf(path);
  if (!family) return [];
  const all = text.split('\n');
  const prose = proseLines(text, family);
  const perLine = [...new Set(lines)]
    .filter((n) => !prose.has(n))
    .sort((a, b) => a - b)
    .map((n) =>
      lineMutants(all[n - 1] ?? '', family).map((m) => {
        const copy = [...all];
        copy[n - 1] = m.text;
        return { path, line: n, change: m.change, text: copy.join('\n') };
      }),
    );
  const out: Mutant[] = [];
  for (let round = 0; perLine.some((m) => m.length > round); round++) {
    for (const mutants of perLine) {
      const m = mutants[round];
      if (m) out.push(m);
    }
  }
  return out;
}
