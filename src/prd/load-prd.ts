import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.js';
import { type FieldProblem, zodProblems } from '../util/format-zod-issues.js';
import { checkPrdConsistency } from './check-prd-consistency.js';
import { type Prd, prdSchema } from './prd-schema.js';

export interface LoadedPrd {
  file: string;
  text: string;
  prd: Prd;
}

/** What to do about a bad field, by its last path segment. */
const FIX_BY_FIELD: Record<string, string> = {
  userStories: 'give an array of story objects: "userStories": [{ "id": "US-001", "title": "…", "passes": false }]',
  id: 'give each story a unique string id such as "US-001"',
  title: 'give each story a short title string',
  passes: 'use true or false without quotes (new stories start with false)',
  priority: 'use a whole number; 1 runs first',
  acceptanceCriteria: 'use an array of strings',
  dependsOn: 'use an array of story ids, e.g. ["US-001"]',
  notes: 'use a string ("" when empty)',
  description: 'use a string',
};

function fixFor(path: string): string {
  const last =
    path
      .replace(/\[\d+\]$/, '')
      .split(/[.[\]]/)
      .filter(Boolean)
      .pop() ?? '';
  return FIX_BY_FIELD[last] ?? 'correct the value at this path';
}

/** Shapes that machine-written PRDs get wrong often enough to deserve their own message. */
function commonMistakes(raw: unknown): FieldProblem[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return [{ path: '(top level)', message: 'expected a JSON object with a "userStories" array' }];
  }
  const obj = raw as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  if (!('userStories' in obj)) {
    for (const wrong of ['tasks', 'stories', 'prd', 'features']) {
      if (wrong in obj) {
        problems.push({
          path: wrong,
          message: `found "${wrong}" where star-loop expects "userStories"; rename the key to "userStories" (each story needs "id", "title" and "passes")`,
        });
      }
    }
  }
  return problems;
}

export function formatProblems(file: string, problems: FieldProblem[]): string {
  return problems.map((p) => `${file}: ${p.path}: ${p.message}`).join('\n');
}

/** Parses and validates prd.json text; throws InputError (exit 2) naming every bad path. */
export function parsePrd(file: string, text: string): Prd {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InputError(
      `${file}: not valid JSON (${(error as Error).message})`,
      'fix the JSON syntax, e.g. with `node -e "JSON.parse(require(\'fs\').readFileSync(process.argv[1]))" prd.json`',
    );
  }
  const mistakes = commonMistakes(raw);
  if (mistakes.length > 0) throw new InputError(formatProblems(file, mistakes), 'see "PRD mode" in the README');
  const parsed = prdSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = zodProblems(parsed.error).map((p) => ({ ...p, message: `${p.message} — ${fixFor(p.path)}` }));
    throw new InputError(formatProblems(file, problems), 'see "PRD mode" in the README for the format');
  }
  const consistency = checkPrdConsistency(parsed.data);
  if (consistency.length > 0) throw new InputError(formatProblems(file, consistency), 'see "PRD mode" in the README');
  return parsed.data;
}

export async function loadPrd(file: string): Promise<LoadedPrd> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot be read (${code ?? 'unknown error'})`,
      'pass the path of your prd.json with --prd, relative to the current directory',
    );
  }
  return { file, text, prd: parsePrd(file, text) };
}
