/** How deep any JSON star-loop reads may nest: far beyond any real prd.json, config, claim or state file. */
export const MAX_JSON_DEPTH = 64;

/**
 * Where `text` first nests arrays or objects deeper than `max` (a character offset), if it does. A linear
 * scan with no recursion, strings skipped, so a hostile file cannot exhaust the stack of anything that walks
 * the parsed value afterwards. Pure.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > max) return i;
    } else if (c === ']' || c === '}') depth--;
  }
  return undefined;
}

/** `JSON.parse`, refusing a document nested deeper than MAX_JSON_DEPTH (the error says where). */
export function parseJson(text: string): unknown {
  const at = tooDeepAt(text);
  if (at !== undefined) throw new SyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels (at character ${at})`);
  return JSON.parse(text);
}
