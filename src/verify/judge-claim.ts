import type { GateResult } from '../state/run-state-schema.js';
import type { Finding } from './finding.js';

export interface JudgeInput {
  gates: readonly GateResult[];
  /** Task mode: unticked items left in `.star/plan.md`. */
  untickedPlanItems?: string[];
}

const STATUS_TEXT: Record<GateResult['status'], string> = {
  pass: 'passed',
  fail: 'failed',
  timeout: 'timed out',
  error: 'could not be run',
};

/** Accept only when every gate is green (and, for a task, the plan is finished). A gate that could not run is red. */
export function judgeClaim(input: JudgeInput): { verdict: 'accepted' | 'rejected'; findings: Finding[] } {
  const findings: Finding[] = input.gates
    .filter((g) => g.status !== 'pass')
    .map((g) => ({
      rule: `gate-${g.status === 'fail' ? 'failed' : g.status}`,
      gate: g.name,
      command: g.command,
      detail: `gate "${g.name}" (\`${g.command}\`) ${STATUS_TEXT[g.status]}${g.exitCode !== undefined ? ` with exit code ${g.exitCode}` : ''}`,
      output: g.tail,
    }));
  const unticked = input.untickedPlanItems ?? [];
  if (unticked.length > 0) {
    findings.push({
      rule: 'plan-unfinished',
      file: '.star/plan.md',
      detail: `the task was claimed complete with ${unticked.length} unticked plan item(s): ${unticked
        .slice(0, 5)
        .map((t) => `"${t}"`)
        .join(', ')}`,
    });
  }
  return { verdict: findings.length === 0 ? 'accepted' : 'rejected', findings };
}

/** Unticked `- [ ] item` lines of a Markdown checklist. */
export function untickedItems(plan: string): string[] {
  return [...plan.matchAll(/^\s*[-*]\s+\[ \]\s+(.*)$/gm)].map((m) => (m[1] ?? '').trim());
}
