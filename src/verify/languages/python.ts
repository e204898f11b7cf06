import type { Language } from './language.js';

export const python: Language = {
  name: 'Python',
  files: /\.py$/,
  testFile: /(^|\/)(test_[^/]*|[^/]*_test)\.py$|(^|\/)tests?\/.*\.py$|(^|\/)conftest\.py$/,
  testCase: [/^\s*(?:async\s+)?def\s+(test\w*)\s*\(/],
  assertion: /^\s*assert\b|\bself\.assert\w+\s*\(|\bpytest\.raises\s*\(/gm,
  expectation: [
    /^\s*assert\s+(?<subject>.+?)\s*(?<matcher>==|!=|is not|is|in)\s*(?<expected>.+?)\s*(#.*)?$/,
    /^\s*assert\s+(?<subject>[^=<>!]+?)(?<matcher>)(?<expected>)\s*(#.*)?$/,
    /\bself\.(?<matcher>assert\w+)\(\s*(?<subject>(?:[^,()]|\([^()]*\))+?)\s*,\s*(?<expected>.+?)\s*\)/,
  ],
  weakMatcher: /^(|is not|assertIsNotNone|assertTrue)$/,
  skipMarkers: [
    /@pytest\.mark\.(skip|skipif|xfail)\b/,
    /\bpytest\.(skip|xfail)\s*\(/,
    /@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b/,
    /\bself\.skipTest\s*\(/,
  ],
  tautologies: [/^\s*assert\s+(True|1|not\s+False|(\w+)\s*==\s*\2)\s*(#.*)?$/, /\bself\.assertTrue\s*\(\s*True\s*\)/],
  escapes: [
    /#\s*type:\s*ignore/,
    /#\s*noqa\b/,
    /#\s*pylint:\s*disable/,
    /#\s*pyright:\s*ignore/,
    /#\s*mypy:\s*ignore/,
    /#\s*pragma:\s*no cover/,
  ],
  notImplemented: [/\braise\s+NotImplementedError\b/],
  placeholderStatement: /^\s*(pass|\.\.\.|return(\s+(None|0|False|True|''|""|\[\]|\{\}))?|#.*)\s*$/,
  functionHeader: /^\s*(?:async\s+)?def\s+\w+\s*\(([^)]*)\)\s*(?:->\s*[^:]+)?:\s*$/,
  comment: /^\s*#/,
};
