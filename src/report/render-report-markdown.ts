import { renderPlan } from '../recon/render-plan.js';
import { formatDuration } from '../util/parse-duration.js';
import type { Report } from './build-report.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** report.md: what a person reads in the morning. */
export function renderReportMarkdown(report: Report): string {
  const out: string[] = [];
  out.push(`# star-loop report — ${report.stopReason}`);
  out.push('');
  out.push(`- Run: \`${report.runId}\` (${report.mode === 'prd' ? 'PRD' : 'task'}: ${report.target})`);
  out.push(`- Stop reason: **${report.stopReason}** — ${report.detail} (exit code ${report.exitCode})`);
  out.push(
    `- Iterations: ${report.iterations}; active time ${formatDuration(report.activeMs)}; cost ${report.costUsd !== undefined ? `$${report.costUsd.toFixed(4)} (reported by the agent)` : 'unknown'}`,
  );
  out.push(
    `- Accepted: ${report.accepted.length === 0 ? 'none' : report.accepted.map((a) => `${a.story ?? 'task'} (iteration ${a.iteration})`).join(', ')}`,
  );
  out.push(`- Remaining: ${report.remaining.length === 0 ? 'nothing' : report.remaining.join(', ')}`);
  if (report.status === 'paused') out.push('- The run is paused: run the same `star-loop run …` command again to continue it.');
  out.push('');
  out.push('## Rejected claims');
  if (report.rejected.length === 0) out.push('', 'None.');
  for (const r of report.rejected) {
    out.push('', `### Iteration ${r.iteration}${r.story ? ` — ${r.story}` : ''}`);
    for (const f of r.findings) out.push(`- [${f.rule}] ${f.detail}`);
  }
  out.push('', '## Gates', '');
  if (report.gates.length === 0) out.push('No gates were found: claims could only be checked by inspection.');
  else for (const g of report.gates) out.push(`- ${g.name}: \`${g.command}\` (${g.source})`);
  out.push('', '## Iterations', '', '| # | story | duration | moved | claim | verdict | note |', '|---|---|---|---|---|---|---|');
  for (const row of report.table) {
    out.push(
      `| ${row.iteration} | ${row.story ?? '—'} | ${formatDuration(row.durationMs)} | ${row.moved ? `yes (${cell(row.movement.join(', '))})` : 'no'} | ${row.claim?.join(', ') ?? '—'} | ${row.verdict} | ${cell([row.agentError, ...row.notes].filter(Boolean).join('; '))} |`,
    );
  }
  out.push('', '## Recon plan', '', '```', renderPlan(report.plan), '```', '');
  return out.join('\n');
}
