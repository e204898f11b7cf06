import type { GateSignal } from '../gates/gate-health.js';
import { describeGateTests, describeTestChecks } from '../prompt/describe-test-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import { formatUsd } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';
import type { Report } from './build-report.js';
import { KIND_WORD, renderPlan } from './render-plan.js';

const where = (f: Finding) => (f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : '');
const gateState = (g?: { status: string; failures?: number; reused?: string }) => {
  if (!g) return '—';
  const failing = g.failures ? ` (${g.failures} failing)` : '';
  return `${g.status}${failing}${g.reused ? ` (reused from ${g.reused.slice(0, 10)})` : ''}`;
};
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const SOURCE: Record<Report['usage']['costSource'], string> = {
  reported: 'reported by the agents',
  estimated: 'partly estimated from tokens and the price table',
  partial: 'a floor: some agent runs reported no cost',
  unknown: '',
};

function costLine(usage: Report['usage']): string {
  const tokens = usage.tokens > 0 ? `; ${usage.tokens.toLocaleString('en-US')} tokens` : '';
  if (usage.costSource === 'unknown') return `cost unknown (the agent reports no cost)${tokens}`;
  return `cost ${formatUsd(usage.costUsd)} (${SOURCE[usage.costSource]})${tokens}`;
}

/** The summary at the top: parked stories first, then why the run stopped, what it did and what is left. */
function summary(report: Report): string[] {
  const out: string[] = [];
  if (report.parked.length > 0) {
    out.push('## Parked for a human (details in .star/pending_for_human.md)', '');
    for (const p of report.parked) {
      const findings = p.findings.map((f) => `[${f.rule}] ${f.detail}`).join('; ') || 'no findings';
      out.push(`- **${p.story}** (iteration ${p.iteration}): ${findings}`);
    }
    out.push('');
  }
  const accepted = report.accepted.map((a) => `${a.story ?? 'task'} (iteration ${a.iteration})`).join(', ');
  out.push(`- Run: \`${report.runId}\` (${report.mode === 'prd' ? 'PRD' : 'task'}: ${report.target})`);
  out.push(`- Stop reason: **${report.stopReason}** — ${report.detail} (exit code ${report.exitCode})`);
  out.push(
    `- Iterations: ${report.iterations}; active time ${formatDuration(report.activeMs)}; ${costLine(report.usage)}`,
  );
  out.push(`- Accepted: ${report.accepted.length === 0 ? 'none' : accepted}`);
  out.push(`- Remaining: ${report.remaining.length === 0 ? 'nothing' : report.remaining.join(', ')}`);
  if (report.worktree) out.push(`- Worktree: ${report.worktree} (branch ${report.branch})`);
  else if (report.branch) out.push(`- Branch: ${report.branch}`);
  if (report.status === 'paused')
    out.push('- The run is paused: run the same `star-loop run …` command again to continue it.');
  for (const warning of report.plan.sandbox.warnings ?? []) out.push(`- **WARNING: ${warning}**`);
  if (report.verify === 'off')
    out.push("- **WARNING: verification was off (`--verify off`): claims were accepted on the agent's word alone.**");
  return out;
}

/** Safety stops with the commands that bring every commit back, and stories that regressed. */
function alarms(report: Report): string[] {
  const out: string[] = [];
  for (const s of report.safety) {
    out.push('', `## Safety stop in iteration ${s.iteration}`, '');
    for (const v of s.violations) out.push(`- [${v.rule}] ${where(v)}${v.detail}`);
    out.push('', 'Nothing was undone. The commits star-loop kept of that iteration, checked just now:', '');
    for (const r of s.recovery) {
      out.push(
        r.command ? `    ${r.command}` : `    ${r.ref}: lost (in neither the repository nor the evidence store)`,
      );
    }
  }
  if (report.recheck && report.recheck.findings.length > 0) {
    out.push('', '## Accepted earlier, broken now', '');
    for (const f of report.recheck.findings) out.push(`- [${f.rule}] ${where(f)}${f.detail}`);
  }
  return out;
}

/**
 * A gate red before iteration 1 and red now says nothing about the claim by its exit code: "no signal",
 * unless its tests were read one by one (then pass-to-pass judged each test).
 */
function outcomeOf(g: Report['claims'][number]['gates'][number]): string {
  if (g.outcome !== 'still-red') return g.outcome;
  return g.now.tests?.evidence === 'per-test' ? 'still red (judged test by test)' : 'still red — no signal';
}

/** Every verified claim: the work checked, the gates before and now, the findings, the verifier. */
function claims(report: Report): string[] {
  const out: string[] = ['', '## Claims', ''];
  if (report.claims.length === 0) out.push('No claim was verified in this run.');
  for (const c of report.claims) {
    out.push(`### Iteration ${c.iteration}${c.story ? ` — ${c.story}` : ''}: ${c.verdict}`, '');
    out.push(`Work checked: \`${c.base.slice(0, 10)}..${c.head.slice(0, 10)}\``, '');
    if (c.gates.length > 0) {
      out.push('| gate | before iteration 1 | now | | test evidence |', '|---|---|---|---|---|');
      for (const g of c.gates) {
        const evidence = cell(describeGateTests(g.now.tests));
        out.push(`| ${g.name} | ${gateState(g.baseline)} | ${gateState(g.now)} | ${outcomeOf(g)} | ${evidence} |`);
      }
      out.push('');
      for (const { name, now } of c.gates) {
        if (!now.modified) continue;
        out.push(
          `- gate ${name} modified files while it ran: ${now.modified.files.join(', ')} — the gate's doing, not ` +
            `the agent's or the verifier's; kept at \`${now.modified.ref}\` for review, never committed`,
        );
      }
    }
    for (const line of describeTestChecks(c.tests)) out.push(`- ${line}`);
    if (c.findings.length === 0) out.push('- no findings');
    for (const f of c.findings) out.push(`- [${f.rule}] ${where(f)}${f.detail}`);
    out.push(
      c.verifier
        ? `- verifier (${c.verifier.agent}): ` +
            `**${c.verifier.verdict}**${c.verifier.error ? ` — ${c.verifier.error}` : ''}`
        : '- verifier: not run (an earlier step already decided, or no claim)',
      '',
    );
  }
  return out;
}

/** The receipts per story and one row per iteration. */
function iterations(report: Report): string[] {
  const out: string[] = [];
  const stories = Object.entries(report.usage.byStory);
  if (stories.length > 0 && report.usage.costSource !== 'unknown') {
    out.push('', '## Receipts', '', '| story | iterations | cost | tokens |', '|---|---|---|---|');
    for (const [story, u] of stories) {
      const cost = `${formatUsd(u.costUsd)}${u.unknownCostRuns > 0 ? ' + unknown' : ''}`;
      out.push(`| ${story} | ${u.iterations} | ${cost} | ${u.tokens.toLocaleString('en-US')} |`);
    }
  }
  out.push('', '## Iterations', '');
  out.push(
    '| # | story | agent | duration | cost | moved | claim | verdict | note |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const row of report.table) {
    const waited =
      row.attempts && row.attempts > 1
        ? `${row.attempts} attempts, waited ${formatDuration(row.waitedMs ?? 0)} for rate limits`
        : '';
    const cost =
      row.costUsd !== undefined
        ? `${formatUsd(row.costUsd)}${row.costSource === 'estimated' ? ' (est.)' : ''}`
        : 'unknown';
    const moved = row.moved ? `yes (${cell(row.movement.join(', '))})` : 'no';
    const note = cell(
      [row.hazard && `hazard: ${row.hazard}`, waited, row.agentError, ...row.notes].filter(Boolean).join('; '),
    );
    const cells = [row.iteration, row.story ?? '—', row.agent ?? '—', formatDuration(row.durationMs), cost, moved];
    out.push(`| ${[...cells, row.claim?.join(', ') ?? '—', row.verdict, note].join(' | ')} |`);
  }
  return out;
}

const SIGNAL_WORD: Record<GateSignal, string> = {
  yes: 'yes',
  'per-test': 'test by test (red before)',
  none: 'no signal (red or not running before)',
};

/** report.md: what a person reads in the morning. */
export function renderReportMarkdown(report: Report): string {
  const out: string[] = [`# star-loop report — ${report.stopReason}`, ''];
  out.push(...summary(report), ...alarms(report), ...claims(report));
  out.push('## Gates', '');
  if (report.gates.length === 0) out.push('No gates were found: claims could only be checked by inspection.');
  else {
    out.push('| gate | checks | before iteration 1 | signal | command (found in) |', '|---|---|---|---|---|');
    for (const g of report.gates) {
      const health = report.gateHealth?.find((h) => h.command === g.command);
      const signal = health?.signal ? SIGNAL_WORD[health.signal] : '—';
      out.push(
        `| ${g.name} | ${KIND_WORD[g.kind]} | ${health?.baseline ?? '—'} | ${signal} | ` +
          `\`${cell(g.command)}\` (${g.source}) |`,
      );
    }
  }
  if (report.testsGap) out.push('', `**Not verified by tests:** ${report.testsGap}.`);
  out.push(...iterations(report));
  if (report.baseline) {
    const gates = report.baseline.gates.map((g) => `${g.name} ${gateState(g)}`).join(', ') || 'no gates';
    out.push('', `Before iteration 1 (at \`${report.baseline.commit.slice(0, 10)}\`): ${gates}`);
  }
  out.push('', '## Recon plan', '', '```', renderPlan(report.plan), '```', '');
  return out.join('\n');
}
