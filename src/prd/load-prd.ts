import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.js';
import { type FieldProblem, zodProblems } from '../util/format-zod-issues.js';
import { ONE_OFF_PARSE } from '../util/one-off-parse.js';
import { parseJson } from '../util/parse-json.js';
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

/** Story fields that machine-written PRDs use instead of star-loop's, with what to do instead. */
const STORY_MISTAKES: Record<string, string> = {
  status:
    'star-loop tracks completion in "passes" (true or false), not "status"; replace it (done → "passes": true), ' +
    'or convert the file with `star-loop import`',
  subtasks:
    'stories have no subtasks: make each subtask a story of its own (order them with "dependsOn"), or convert the ' +
    'file with `star-loop import` (it makes them acceptance criteria)',
  estimated_hours: 'star-loop does not use estimates: remove "estimated_hours"',
  files: 'star-loop does not use "files": name the files in the description or acceptanceCriteria instead',
};

/** Shapes that machine-written PRDs get wrong often enough to deserve their own message. */
export function commonMistakes(raw: unknown): FieldProblem[] {
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
          message:
            `found "${wrong}" where star-loop expects "userStories"; rename the key to "userStories" (each ` +
            `story needs "id", "title" and "passes"), or convert the file with \`star-loop import\``,
        });
      }
    }
  }
  if (Array.isArray(obj.userStories)) {
    obj.userStories.forEach((story, i) => {
      if (typeof story !== 'object' || story === null) return;
      for (const [field, fix] of Object.entries(STORY_MISTAKES)) {
        if (field in story) problems.push({ path: `userStories[${i}].${field}`, message: fix });
      }
    });
  }
  return problems;
}

export function formatProblems(file: string, problems: FieldProblem[]): string {
  return problems.map((p) => `${file}: ${p.path}: ${p.message}`).join('\n');
}

/**
 * Every problem of a prd.json text, each with its path and a fix: the common mistakes, the schema, then consistency.
 */
export function checkPrd(text: string): { prd?: Prd; problems: FieldProblem[]; syntaxError?: string } {
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (error) {
    return { problems: [], syntaxError: (error as Error).message };
  }
  const problems = commonMistakes(raw);
  const parsed = prdSchema.safeParse(raw, ONE_OFF_PARSE);
  if (!parsed.success) {
    const flagged = new Set(problems.map((p) => p.path));
    for (const p of zodProblems(parsed.error)) {
      // "passes is missing" says nothing new where "status" was already explained.
      if (p.path.endsWith('.passes') && flagged.has(p.path.replace(/\.passes$/, '.status'))) continue;
      problems.push({ ...p, message: `${p.message} — ${fixFor(p.path)}` });
    }
    return { problems };
  }
  problems.push(...checkPrdConsistency(parsed.data));
  return { prd: problems.length === 0 ? parsed.data : undefined, problems };
}

/** Parses and validates prd.json text; throws InputError (exit 2) naming every bad path. */
export function parsePrd(file: string, text: string): Prd {
  const checked = checkPrd(text);
  if (checked.syntaxError !== undefined) {
    throw new InputError(
      `${file}: not valid JSON (${checked.syntaxError})`,
      'fix the JSON syntax, e.g. with `node -e "JSON.parse(require(\'fs\').readFileSync(process.argv[1]))" prd.json`',
    );
  }
  if (!checked.prd) throw new InputError(formatProblems(file, checked.problems), 'see docs/prd.md for the format');
  return checked.prd;
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
