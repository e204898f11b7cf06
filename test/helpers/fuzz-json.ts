/**
 * Generated hostile variants of a JSON document, from a seed (the same seed, the same cases): values of the
 * wrong type, deep nesting, huge strings, NUL bytes, removed keys, and broken text (truncated, invalid
 * UTF-8, a byte-order mark). Not random at run time: a failing case is named by its seed and index.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REPLACEMENTS: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  '',
  'yes',
  '\u0000',
  'x'.repeat(200_000),
  [],
  {},
  [1, 'a', null],
  { nested: { deeper: [{}] } },
  Array.from({ length: 5000 }, (_, i) => i),
];

type Json = unknown;

/** Every path to a node of the document (root included). */
function paths(value: Json, at: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(at);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) paths(v, [...at, i], out);
  } else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value as object)) paths(v, [...at, k], out);
  return out;
}

function setAt(root: Json, path: Array<string | number>, make: (old: Json) => Json | undefined): Json {
  if (path.length === 0) return make(root);
  const copy = structuredClone(root) as Record<string | number, Json>;
  let node = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  const last = path.at(-1) as string | number;
  const next = make(node[last]);
  if (next === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = next;
  return copy;
}

/** `count` variants of `base` (a parsed JSON value), as file contents. */
export function fuzzJson(base: Json, seed: number, count: number): string[] {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const all = paths(base);
  const cases: string[] = [];
  for (let i = 0; i < count; i++) {
    const path = pick(all);
    const kind = Math.floor(random() * 8);
    const text = JSON.stringify(base, null, 2);
    switch (kind) {
      case 0:
      case 1:
        cases.push(JSON.stringify(setAt(base, path, () => pick(REPLACEMENTS))));
        break;
      case 2:
        cases.push(JSON.stringify(setAt(base, path, () => undefined)) ?? 'null');
        break;
      case 3: {
        const depth = pick([60, 65, 1000, 100_000]);
        cases.push(
          JSON.stringify(setAt(base, path, () => 0)).replace(
            /0(?=[,}\]]|$)/,
            `${'['.repeat(depth)}${']'.repeat(depth)}`,
          ),
        );
        break;
      }
      case 4:
        cases.push(text.slice(0, Math.floor(random() * text.length)));
        break;
      case 5:
        cases.push(`\ufeff${text}`);
        break;
      case 6:
        cases.push(
          Buffer.concat([
            Buffer.from(text.slice(0, 20)),
            Buffer.from([0xff, 0xfe, 0x00]),
            Buffer.from(text.slice(20)),
          ]).toString('latin1'),
        );
        break;
      default:
        cases.push(pick(['', 'null', '[]', '"text"', '{}', '{"userStories": {}}', '0', 'true']));
    }
  }
  return cases;
}
