import type { Prd } from '../prd/prd-schema.js';
import type { FleetState, TimelineEntry } from '../state/fleet-state-schema.js';
import { formatUsd } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';

/** `.star/report.json` of a fleet (`kind: "fleet"`); `.star/report.md` is rendered from it. */
export interface FleetReport {
  kind: 'fleet';
  fleetId: string;
  branch: string;
  workers: number;
  stopReason: string;
  exitCode: number;
  detail: string;
  startedAt: string;
  endedAt?: string;
  activeMs: number;
  spent: FleetState['spent'];
  limits: FleetState['limits'];
  stories: Array<{
    id: string;
    title: string;
    status: string;
    attempts: number;
    returns: number;
    deaths: number;
    iterations: number;
    costUsd: number;
    unknownCostRuns: number;
    tokens: number;
    branch?: string;
    worktree?: string;
    setAside: string[];
    mergeCommit?: string;
    detail?: string;
  }>;
  /** The integration branch's merges, in order. */
  mergeOrder: Array<{ order: number; story: string; attempt: number; commit: string; at: string }>;
  /** Per story, everything that happened to it, across workers and attempts. */
  timeline: Record<string, TimelineEntry[]>;
}

export function buildFleetReport(state: FleetState, prd: Prd): FleetReport {
  const timeline: Record<string, TimelineEntry[]> = {};
  for (const entry of state.timeline) timeline[entry.story] = [...(timeline[entry.story] ?? []), entry];
  return {
    kind: 'fleet',
    fleetId: state.fleetId,
    branch: state.branch,
    workers: state.workers,
    stopReason: state.stopReason ?? 'stopped',
    exitCode: state.exitCode ?? 1,
    detail: state.stopDetail ?? '',
    startedAt: state.startedAt,
    endedAt: state.endedAt,
    activeMs: state.activeMs,
    spent: state.spent,
    limits: state.limits,
    stories: prd.userStories.map((s) => {
      const f = state.stories[s.id];
      return {
        id: s.id,
        title: s.title,
        status: f?.status ?? (s.passes ? 'passed before' : 'not started'),
        attempts: f?.attempt ?? 0,
        returns: f?.returns ?? 0,
        deaths: f?.deaths ?? 0,
        iterations: f?.iterations ?? 0,
        costUsd: f?.costUsd ?? 0,
        unknownCostRuns: f?.unknownCostRuns ?? 0,
        tokens: f?.tokens ?? 0,
        branch: f?.branch,
        worktree: f?.worktree,
        setAside: f?.setAside ?? [],
        mergeCommit: f?.mergeCommit,
        detail: f?.status === 'merged' ? undefined : f?.detail,
      };
    }),
    mergeOrder: state.merges.map((m, i) => ({ order: i + 1, ...m })),
    timeline,
  };
}

/** A cost with what is not known about it said plainly. */
function costText(usd: number, unknownRuns: number): string {
  if (unknownRuns > 0 && usd === 0) return 'unknown';
  return `${formatUsd(usd)}${unknownRuns > 0 ? ' + unknown' : ''}`;
}

export function renderFleetReportMarkdown(r: FleetReport): string {
  const out = [
    `# star-loop fleet ${r.fleetId}: ${r.stopReason} (exit ${r.exitCode})`,
    '',
    r.detail,
    '',
    `${r.workers} workers on \`${r.branch}\`, active ` +
      `${formatDuration(r.activeMs)}${r.limits.maxTimeMs ? ` of ${formatDuration(r.limits.maxTimeMs)}` : ''}; ` +
      `${r.spent.iterations} iterations + ${r.spent.verifierRuns} verifier runs of ${r.limits.maxIterations}; ` +
      `cost ${costText(r.spent.costUsd, r.spent.unknownCostRuns)}; tokens ${r.spent.tokens}.`,
    '',
    '## Stories',
    '',
    '| story | status | attempts | iterations | cost | merge |',
    '| --- | --- | --- | --- | --- | --- |',
    ...r.stories.map(
      (s) =>
        `| ${s.id} ${s.title} | ` +
        `${s.status}${s.detail ? `: ${s.detail.replaceAll('|', '\\|').slice(0, 200)}` : ''} | ${s.attempts} | ` +
        `${s.iterations} | ${costText(s.costUsd, s.unknownCostRuns)} | ` +
        `${s.mergeCommit ? s.mergeCommit.slice(0, 10) : (s.branch ?? '')} |`,
    ),
    '',
    '## Merge order',
    '',
    ...(r.mergeOrder.length
      ? r.mergeOrder.map((m) => `${m.order}. ${m.story} (attempt ${m.attempt}) — ${m.commit.slice(0, 10)} at ${m.at}`)
      : ['nothing merged']),
    '',
    '## Timeline per story',
  ];
  for (const [story, entries] of Object.entries(r.timeline)) {
    out.push('', `### ${story}`, '');
    for (const e of entries) {
      out.push(
        `- ${e.at} ${e.slot !== undefined ? `worker ${e.slot} ` : ''}attempt ${e.attempt}: ` +
          `${e.event}${e.detail ? ` — ${e.detail.slice(0, 300)}` : ''}`,
      );
    }
  }
  const aside = r.stories.filter((s) => s.setAside.length > 0 || (s.status !== 'merged' && s.worktree));
  if (aside.length > 0) {
    out.push('', '## Kept for you', '');
    for (const s of aside) {
      if (s.worktree) out.push(`- ${s.id}: worktree ${s.worktree} on ${s.branch}`);
      for (const b of s.setAside) out.push(`- ${s.id}: earlier attempt kept on branch ${b}`);
    }
  }
  return `${out.join('\n')}\n`;
}
