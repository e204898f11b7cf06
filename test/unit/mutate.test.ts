import { describe, expect, it } from 'vitest';
import { codeOnly, mutantsOf } from '../../src/evidence/mutate.js';

const changes = (path: string, text: string, lines: number[]) =>
  mutantsOf(path, text, lines).map((m) => `${m.line} ${m.change} | ${m.text.split('\n')[m.line - 1]}`);

describe('mutants of the claimed lines', () => {
  it('JavaScript: return value, operators, conditions, a dropped statement — one line after another', () => {
    const text = 'export function f(a, b) {\n  if (a > b) {\n    log(a);\n  }\n  return a * b;\n}\n';
    expect(changes('src/f.js', text, [2, 3, 5])).toEqual([
      '2 > → <= |   if (a <= b) {',
      '3 statement dropped | ',
      '5 return value → undefined |   return undefined;',
      '2 if condition negated |   if (!(a > b)) {',
      '5 * → / |   return a / b;',
    ]);
  });

  it('Python: None, and/or, not', () => {
    const text = 'def f(a, b):\n    if a and b:\n        return a + b\n    return 0\n';
    expect(changes('calc.py', text, [2, 3])).toEqual([
      '2 and → or |     if a or b:',
      '3 return value → None |         return None',
      '2 if condition negated |     if not (a and b):',
      '3 + → - |         return a - b',
    ]);
  });

  it('Go and Rust: only swaps that keep the types (no replaced return value)', () => {
    expect(changes('calc.go', 'func Add(a, b int) int {\n\treturn a + b\n}\n', [2])).toEqual([
      '2 + → - | \treturn a - b',
    ]);
  });

  it('never inside strings or comments, never part of a longer operator', () => {
    expect(codeOnly("x = 'a + b' // c * d", 'js')).toBe("x = '     '         ");
    expect(changes('src/f.js', "const s = 'a * b';\nconst g = (x) => x;\ni += 1;\n", [1, 2])).toEqual([]);
  });

  it('files of no known language give none', () => {
    expect(mutantsOf('README.md', 'a + b\n', [1])).toEqual([]);
  });
});

describe('prose is not code', () => {
  it('a Python docstring (and its quotes), a template literal, a block comment are never mutated', () => {
    const py =
      'def f(a, b=False):\n    """Adds a and b.\n\n    If a and b are equal, a + b is even.\n    """\n    return a + b\n';
    expect(changes('m.py', py, [2, 3, 4, 5, 6]).map((c) => c.split(' | ')[0])).toEqual([
      '6 return value → None',
      '6 + → -',
    ]);
    const js = 'const s = `a\nb + c\n`;\n/* x\n a && b\n*/\nexport const g = (a) => a && 1;\n';
    expect(changes('m.js', js, [2, 5, 7]).map((c) => c.split(' | ')[0])).toEqual(['7 && → ||']);
  });
});
