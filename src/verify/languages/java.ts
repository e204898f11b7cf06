import type { Language } from './language.js';

export const java: Language = {
  name: 'Java/Kotlin',
  files: /\.(java|kt)$/,
  testFile: /(^|\/)src\/test\/|Test\.(java|kt)$|Tests\.(java|kt)$/,
  testCase: [/@(?:Test|ParameterizedTest)\b/],
  assertion: /\bassert\w*\s*\(|\bassertThat\s*\(|\bverify\s*\(/g,
  expectation: [
    new RegExp(
      String.raw`\b(?<matcher>assertEquals|assertSame)\(\s*(?<expected>(?:[^,()]|\([^()]*\))+?)\s*,\s*(?<subject` +
        String.raw`>.+?)\s*\)\s*;?\s*$`,
    ),
  ],
  weakMatcher: /^(assertNotNull|assertTrue)$/,
  skipMarkers: [/@Disabled\b/, /@Ignore\b/, /\bAssumptions\.assume\w*\s*\(/],
  tautologies: [/\bassertTrue\s*\(\s*true\s*\)/, /\bassertEquals\s*\(\s*([\w.]+)\s*,\s*\1\s*\)/],
  escapes: [/@SuppressWarnings\b/, /\/\/\s*NOSONAR\b/, /@Suppress\b/],
  notImplemented: [/throw\s+new\s+(UnsupportedOperationException|NotImplementedError)\s*\(/, /\bTODO\s*\(\s*\)/],
  placeholderStatement: /^\s*(return(\s+(null|0|false|true|""))?\s*;|\/\/.*)\s*$/,
  functionHeader:
    /^\s*(?:(?:public|private|protected|static|final|override|fun)\s+)+[\w<>[\], ]*?\w+\s*\(([^)]*)\)[^{]*\{\s*\}?\s*$/,
  comment: /^\s*(\/\/|\/\*|\*)/,
};
