import type { FieldProblem } from '../util/format-zod-issues.js';
import type { Prd } from './prd-schema.js';

/** Cross-field rules zod cannot express per field: unique ids, known and acyclic dependencies. */
export function checkPrdConsistency(prd: Prd): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const index = new Map<string, number>();
  prd.userStories.forEach((story, i) => {
    const first = index.get(story.id);
    if (first !== undefined) {
      problems.push({
        path: `userStories[${i}].id`,
        message: `duplicate id "${story.id}" (also userStories[${first}].id) — give every story a unique id`,
      });
    } else index.set(story.id, i);
  });
  prd.userStories.forEach((story, i) => {
    (story.dependsOn ?? []).forEach((dep, j) => {
      if (!index.has(dep)) {
        problems.push({
          path: `userStories[${i}].dependsOn[${j}]`,
          message: `unknown story id "${dep}" — use the id of another story in this file`,
        });
      } else if (dep === story.id) {
        problems.push({
          path: `userStories[${i}].dependsOn[${j}]`,
          message: 'a story cannot depend on itself — remove it',
        });
      }
    });
  });
  if (problems.length === 0) {
    const cycle = findCycle(prd);
    if (cycle) {
      const i = index.get(cycle[0] ?? '') ?? 0;
      problems.push({
        path: `userStories[${i}].dependsOn`,
        message: `dependency cycle ${cycle.join(' → ')} — remove one of these dependsOn entries`,
      });
    }
  }
  return problems;
}

function findCycle(prd: Prd): string[] | undefined {
  const deps = new Map(prd.userStories.map((s) => [s.id, s.dependsOn ?? []]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of deps.keys()) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}
