import type * as z from 'zod';

/** `userStories[2].id` from zod's path array. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(top level)';
}

export interface FieldProblem {
  path: string;
  message: string;
}

export function zodProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}
