import type { GateKind } from '../gates/gate.js';
import type { Plan } from '../recon/plan.js';
import { formatUsd } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';

/** What a gate of each kind checks, in the plan's words. */
export const KIND_WORD: Record<GateKind, string> = {
  test: 'runs tests',
  lint: 'lint',
  typecheck: 'types',
  build: 'build',
  other: 'other',
};

/** The recon plan as text, for `--dry-run`, the terminal at start and the report. */
export function renderPlan(plan: Plan): string {
  const out: string[] = [];
  const { git, limits } = plan;
  out.push(`Mode: ${plan.mode === 'prd' ? 'PRD' : 'task'} (${plan.target})`);
  out.push(
    `Git: ${git.root} on ${git.branch ?? '(detached HEAD)'} at ${git.head?.slice(0, 10) ?? '(no commits)'}; ` +
      `default branch ${git.defaultBranch ?? '(unknown)'} (${git.defaultBranchSource}); ` +
      `${git.changes.length === 0 ? 'clean' : `${git.changes.length} uncommitted change(s)`}`,
  );
  out.push(`Branch: ${plan.workspace}`);
  out.push(`Agent: ${plan.agent.name} — ${plan.agent.command}${plan.agent.found ? '' : ' (not found on PATH)'}`);
  out.push('Gates (run by star-loop on every claim):');
  if (plan.gates.length === 0) out.push('  (none found)');
  for (const g of plan.gates) out.push(`  - ${g.name} (${KIND_WORD[g.kind]}): \`${g.command}\`  [${g.source}]`);
  if (plan.droppedGates?.length) out.push('  found and left out:');
  for (const d of plan.droppedGates ?? []) out.push(`    · \`${d.command}\` [${d.source}]: ${d.reason}`);
  if (plan.gateFiles?.length) out.push(`  they also run, pinned with them: ${plan.gateFiles.join(', ')}`);
  if (plan.stories) {
    const s = plan.stories;
    out.push(
      `Stories: ${s.total} total, ${s.passed} passing, ${s.remaining} remaining; next: ${s.next ?? '(none ready)'}`,
    );
    for (const story of s.order) {
      const mark = story.passes ? 'x' : ' ';
      const wait = story.waitingFor.length > 0 ? `  (waits for ${story.waitingFor.join(', ')})` : '';
      out.push(
        `  [${mark}] ${story.id}${story.priority !== undefined ? ` p${story.priority}` : ''} ${story.title}${wait}`,
      );
    }
  }
  if (plan.task) {
    const firstLine = plan.task.split('\n')[0] ?? '';
    out.push(`Task: ${firstLine.length > 100 ? `${firstLine.slice(0, 100)}…` : firstLine}`);
    out.push(
      '  the agent keeps an ordered checklist in .star/plan.md and takes the first unticked item each iteration',
    );
  }
  const clock = limits.maxTimeMs ? `, ${formatDuration(limits.maxTimeMs)} wall clock` : '';
  const cost = limits.maxCostUsd !== undefined ? `cost ${formatUsd(limits.maxCostUsd)}` : 'no cost cap';
  const tokens = limits.maxTokens !== undefined ? `${limits.maxTokens} tokens` : 'no token cap';
  const turns = limits.maxTurns !== undefined ? `, ${limits.maxTurns} turns per agent run` : '';
  const wait = formatDuration(limits.maxWaitMs);
  const fallback = limits.fallbackAgent ? `, with ${limits.fallbackAgent} standing in` : '';
  out.push(
    `Limits: at most ${limits.maxIterations} iterations${clock}; ${limits.onStall} after ${limits.stallAfter} ` +
      `iterations without movement; agent timeout ${formatDuration(limits.iterationTimeoutMs)}, ` +
      `gate timeout ${formatDuration(limits.gateTimeoutMs)}`,
    `Budgets: ${cost}, ${tokens}${turns}; rate limits waited out for up to ${wait}${fallback}`,
  );
  out.push(
    plan.verify.mode === 'off'
      ? "Verification: OFF — claims are accepted on the agent's word"
      : `Verification (${plan.verify.mode}): gates against a baseline taken before iteration 1, checks for faked ` +
          `success, then the adversarial verifier ${plan.verify.verifier}; one run kept in reserve for it`,
  );
  out.push(`Sandbox (--sandbox ${plan.sandbox.mode}): ${plan.sandbox.detail}`);
  for (const warning of plan.sandbox.warnings ?? []) out.push(`  ! ${warning}`);
  out.push(
    `Safety: ${plan.safety.pushBlocked ? 'git push blocked' : 'git push ALLOWED (--allow-push)'}; protected paths ` +
      `${plan.safety.protectedPaths.join(', ') || '(none)'}; history, branch, pinned files and secrets checked ` +
      `after every agent run`,
  );
  out.push(`Biggest risk: ${plan.risks[0] ?? 'none visible'}`);
  for (const risk of plan.risks.slice(1)) out.push(`Also: ${risk}`);
  return out.join('\n');
}
