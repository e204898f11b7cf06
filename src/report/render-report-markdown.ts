import { renderPlan } from '../recon/render-plan.js';
import { formatDuration } from '../util/parse-duration.js';
import type { Finding } from '../verify/finding.js';
import type { Report } from './build-report.js';

const where = (f: Finding) => (f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : '');
const gateState = (g?: { status: string; failures?: number }) => (g ? `${g.status}${g.failures ? ` (${g.failures} failing)` : ''}` : '—');
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** report.md: what a person reads in the morning. */
export function renderReportMarkdown(report: Report): string {
  const out: string[] = [];
  out.push(`# star-loop report — ${report.stopReason}`);
  out.push('');
  if (report.parked.length > 0) {
    out.push('## Parked for a human (details in .star/pending_for_human.md)', '');
    for (const p of report.parked)
      out.push(
        `- **${p.story}** (iteration ${p.iteration}): ${p.findings.map((f) => `[${f.rule}] ${f.detail}`).join('; ') || 'no findings'}`,
      );
    out.push('');
  }
  out.push(`- Run: \`${report.runId}\` (${report.mode === 'prd' ? 'PRD' : 'task'}: ${report.target})`);
  out.push(`- Stop reason: **${report.stopReason}** — ${report.detail} (exit code ${report.exitCode})`);
  out.push(
    `- Iterations: ${report.iterations}; active time ${formatDuration(report.activeMs)}; cost ${report.costUsd !== undefined ? `$${report.costUsd.toFixed(4)} (reported by the agent)` : 'unknown'}`,
  );
  out.push(
    `- Accepted: ${report.accepted.length === 0 ? 'none' : report.accepted.map((a) => `${a.story ?? 'task'} (iteration ${a.iteration})`).join(', ')}`,
  );
  out.push(`- Remaining: ${report.remaining.length === 0 ? 'nothing' : report.remaining.join(', ')}`);
  if (report.worktree) out.push(`- Worktree: ${report.worktree} (branch ${report.branch})`);
  else if (report.branch) out.push(`- Branch: ${report.branch}`);
  if (report.status === 'paused') out.push('- The run is paused: run the same `star-loop run …` command again to continue it.');
  if (report.verify === 'off')
    out.push("- **WARNING: verification was off (`--verify off`): claims were accepted on the agent's word alone.**");
  for (const s of report.safety) {
    out.push('', `## Safety stop in iteration ${s.iteration}`, '');
    for (const v of s.violations) out.push(`- [${v.rule}] ${where(v)}${v.detail}`);
    out.push('', 'Nothing was undone. Every commit of that iteration is still reachable; to get one back as a branch:', '');
    for (const ref of s.keptRefs) out.push(`    git branch recovered-${ref.split('/').pop()} ${ref}`);
  }
  if (report.recheck && report.recheck.findings.length > 0) {
    out.push('', '## Accepted earlier, broken now', '');
    for (const f of report.recheck.findings) out.push(`- [${f.rule}] ${where(f)}${f.detail}`);
  }
  out.push('', '## Claims', '');
  if (report.claims.length === 0) out.push('No claim was verified in this run.');
  for (const c of report.claims) {
    out.push(`### Iteration ${c.iteration}${c.story ? ` — ${c.story}` : ''}: ${c.verdict}`, '');
    out.push(`Work checked: \`${c.base.slice(0, 10)}..${c.head.slice(0, 10)}\``, '');
    if (c.gates.length > 0) {
      out.push('| gate | before iteration 1 | now | |', '|---|---|---|---|');
      for (const g of c.gates) out.push(`| ${g.name} | ${gateState(g.baseline)} | ${gateState(g.now)} | ${g.outcome} |`);
      out.push('');
    }
    if (c.findings.length === 0) out.push('- no findings');
    for (const f of c.findings) out.push(`- [${f.rule}] ${where(f)}${f.detail}`);
    out.push(
      c.verifier
        ? `- verifier (${c.verifier.agent}): **${c.verifier.verdict}**${c.verifier.error ? ` — ${c.verifier.error}` : ''}`
        : '- verifier: not run (an earlier step already decided, or no claim)',
      '',
    );
  }
  out.push('## Gates', '');
  if (report.gates.length === 0) out.push('No gates were found: claims could only be checked by inspection.');
  else for (const g of report.gates) out.push(`- ${g.name}: \`${g.command}\` (${g.source})`);
  out.push('', '## Iterations', '', '| # | story | duration | moved | claim | verdict | note |', '|---|---|---|---|---|---|---|');
  for (const row of report.table) {
    out.push(
      `| ${row.iteration} | ${row.story ?? '—'} | ${formatDuration(row.durationMs)} | ${row.moved ? `yes (${cell(row.movement.join(', '))})` : 'no'} | ${row.claim?.join(', ') ?? '—'} | ${row.verdict} | ${cell([row.agentError, ...row.notes].filter(Boolean).join('; '))} |`,
    );
  }
  if (report.baseline) {
    out.push(
      '',
      `Before iteration 1 (at \`${report.baseline.commit.slice(0, 10)}\`): ${report.baseline.gates.map((g) => `${g.name} ${gateState(g)}`).join(', ') || 'no gates'}`,
    );
  }
  out.push('', '## Recon plan', '', '```', renderPlan(report.plan), '```', '');
  return out.join('\n');
}
