import type { Language } from './language.js';

export const go: Language = {
  name: 'Go',
  files: /\.go$/,
  testFile: /_test\.go$/,
  testCase: [/^\s*func\s+(Test\w*)\s*\(/],
  assertion: /\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\b(?:assert|require)\.\w+\s*\(/g,
  expectation: [
    new RegExp(
      String.raw`\b(?:assert|require)\.(?<matcher>\w+)\(\s*t\s*,\s*(?<expected>(?:[^,()]|\([^()]*\))+?)\s*,\s*(?` +
        String.raw`<subject>.+?)\s*\)\s*$`,
    ),
  ],
  weakMatcher: /^(NotNil|True|NotEmpty|NoError)$/,
  skipMarkers: [/\bt\.Skip(?:f|Now)?\s*\(/],
  tautologies: [/\bassert\.True\s*\(\s*t\s*,\s*true\s*\)/],
  escapes: [/\/\/\s*nolint\b/, /#nosec\b/],
  notImplemented: [/\bpanic\s*\(\s*"[^"]*(not\s+(yet\s+)?implemented|todo|unimplemented)[^"]*"\s*\)/i],
  placeholderStatement: /^\s*(return(\s+(nil|0|false|true|""))?|\/\/.*)\s*$/,
  functionHeader: /^\s*func\s+(?:\([^)]*\)\s*)?\w+\s*\(([^)]*)\)[^{]*\{\s*\}?\s*$/,
  comment: /^\s*\/\//,
};
