import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJson, tooDeepAt } from '../../src/util/parse-json.js';

describe('JSON with bounded nesting', () => {
  it('finds the first place a document nests too deep, without recursion; strings do not count', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(tooDeepAt(deep)).toBe(MAX_JSON_DEPTH);
    expect(tooDeepAt(`{"a": "${'['.repeat(500)}\\"["}`)).toBeUndefined();
    expect(tooDeepAt(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBeUndefined();
  });

  it('parses what is within bounds and refuses what is not, saying where', () => {
    expect(parseJson('{"a": [1, {"b": null}]}')).toEqual({ a: [1, { b: null }] });
    expect(() => parseJson(`{"x": ${'['.repeat(70)}${']'.repeat(70)}}`)).toThrow(
      `nested deeper than ${MAX_JSON_DEPTH} levels (at character ${5 + MAX_JSON_DEPTH})`,
    );
    expect(() => parseJson('{bad')).toThrow(SyntaxError);
  });
});
