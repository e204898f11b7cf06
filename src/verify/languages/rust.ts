import type { Language } from './language.js';

export const rust: Language = {
  name: 'Rust',
  files: /\.rs$/,
  testFile: /(^|\/)tests\/.*\.rs$|_test\.rs$/,
  testCase: [/^\s*(?:pub\s+)?(?:async\s+)?fn\s+(test\w*)\s*\(/],
  assertion: /\b(?:assert|assert_eq|assert_ne|debug_assert\w*)!\s*\(/g,
  expectation: [
    /\b(?<matcher>assert_eq|assert_ne)!\(\s*(?<subject>(?:[^,()]|\([^()]*\))+?)\s*,\s*(?<expected>.+?)\s*\)\s*;?\s*$/,
  ],
  weakMatcher: /^(assert)$/,
  skipMarkers: [/#\[ignore\b/],
  tautologies: [/\bassert!\s*\(\s*true\s*\)/, /\bassert_eq!\s*\(\s*([\w.]+)\s*,\s*\1\s*\)/],
  escapes: [/#!?\[allow\(/, /#\[cfg_attr\([^)]*allow/],
  notImplemented: [/\b(?:todo|unimplemented)!\s*\(/, /\bpanic!\s*\(\s*"[^"]*not\s+(yet\s+)?implemented/i],
  placeholderStatement: /^\s*(Default::default\(\)|\(\)|0|false|true|None|\/\/.*)\s*;?\s*$/,
  functionHeader: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+\w+\s*(?:<[^>]*>)?\s*\(([^)]*)\)[^{]*\{\s*\}?\s*$/,
  comment: /^\s*\/\//,
};
