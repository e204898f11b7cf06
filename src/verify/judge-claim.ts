import type { Finding } from '../state/finding-schema.js';

/** Unticked `- [ ] item` lines of a Markdown checklist. */
export function untickedItems(plan: string): string[] {
  return [...plan.matchAll(/^\s*[-*]\s+\[ \]\s+(.*)$/gm)].map((m) => (m[1] ?? '').trim());
}

/** Task mode: "complete" while the agent's own plan still has open items is not complete. */
export function planFindings(unticked: readonly string[]): Finding[] {
  if (unticked.length === 0) return [];
  return [
    {
      rule: 'plan-unfinished',
      file: '.star/plan.md',
      detail: `the task was claimed complete with ${unticked.length} unticked plan item(s): ${unticked
        .slice(0, 5)
        .map((t) => `"${t}"`)
        .join(', ')}`,
    },
  ];
}
