import type { Language } from './language.js';

export const javascript: Language = {
  name: 'JavaScript/TypeScript',
  files: /\.(c|m)?(j|t)sx?$/,
  testFile: /(^|\/)(__tests__\/|tests?\/|spec\/)|\.(test|spec)\.(c|m)?(j|t)sx?$/,
  testCase: [/\b(?:it|test)(?:\.(?:only|skip|todo|each\([^)]*\)|concurrent))?\s*\(\s*(['"`])(.*?)\1/],
  assertion: /\bexpect\s*\(|\bassert(?:\.\w+)?\s*\(|\bt\.(?:is|deepEqual|true|false|throws|equal)\s*\(/g,
  expectation: [
    /\bexpect\((?<subject>.+?)\)\.(?<matcher>(?:not\.)?\w+)\((?<expected>.*)\)\s*;?\s*\)?\s*;?\s*$/,
    /\bassert\.(?<matcher>ok)\(\s*(?<subject>(?:[^()]|\([^()]*\))+?)\s*\)\s*;?\s*\)?\s*;?\s*$(?<expected>)/,
    new RegExp(
      String.raw`\bassert\.(?<matcher>equal|strictEqual|deepEqual|deepStrictEqual)\(\s*(?<subject>(?:[^,()]|` +
        String.raw`\([^()]*\))+?)\s*,\s*(?<expected>.+?)\s*\)\s*;?\s*\)?\s*;?\s*$`,
    ),
  ],
  weakMatcher: new RegExp(
    String.raw`^(toBeDefined|toBeTruthy|not\.toBeNull|not\.toBeUndefined|not\.toBeFalsy|toBeInstanceOf|` +
      'toHaveProperty|toBeTypeOf|ok)$',
  ),
  skipMarkers: [
    /\b(?:it|test|describe|suite|context)\.(?:skip|only|todo|skipIf|runIf)\b/,
    /\b(?:xit|xtest|xdescribe|fit|fdescribe|xcontext)\s*\(/,
    /\btest\.fixme\s*\(/,
  ],
  tautologies: [
    new RegExp(
      String.raw`\bexpect\s*\(\s*(true|false|null|undefined|\d+|(['"\x60])[^'"\x60]*\2)\s*\)\s*\.\s*(?:toBe|` +
        String.raw`toEqual|toStrictEqual)\s*\(\s*\1\s*\)`,
    ),
    /\bexpect\s*\(\s*true\s*\)\s*\.\s*toBeTruthy\s*\(\s*\)/,
    /\bassert(?:\.ok)?\s*\(\s*true\s*\)/,
    /\bassert\.(?:equal|strictEqual|deepEqual)\s*\(\s*([\w.]+)\s*,\s*\1\s*\)/,
  ],
  escapes: [
    /eslint-disable/,
    /@ts-ignore/,
    /@ts-expect-error/,
    /@ts-nocheck/,
    /biome-ignore/,
    /prettier-ignore/,
    /istanbul ignore|c8 ignore|v8 ignore/,
  ],
  notImplemented: [
    /throw\s+new\s+\w*Error\s*\(\s*(['"`])[^'"`]*(not\s+(yet\s+)?implemented|todo|unimplemented|stub)[^'"`]*\1/i,
  ],
  placeholderStatement: /^\s*(return(\s+(null|undefined|0|false|true|''|""|\[\]|\{\}))?\s*;?|\/\/.*)\s*$/,
  functionHeader: new RegExp(
    String.raw`(?:function\s+\w+\s*|\b\w+\s*=\s*(?:async\s*)?|^\s*(?:async\s+)?\w+\s*)\(([^)]*)\)\s*(?::\s*[\w` +
      String.raw`<>[\]|, ]+)?\s*(?:=>)?\s*\{\s*\}?\s*;?\s*$`,
  ),
  comment: /^\s*(\/\/|\/\*|\*)/,
};
