import { appendFile } from 'node:fs/promises';
import { readPrdNow } from '../prd/read-prd-passes.js';
import { passedIds, selectNextStory } from '../prd/select-next-story.js';
import type { IterationRecord, RunState } from '../state/run-state-schema.js';
import type { LoopContext } from './loop-context.js';

/**
 * Oscillation: the last four iterations left the repository in states A, B, A, B — work done and undone.
 * Each moved (so no stall), yet nothing progresses.
 */
export function detectOscillation(records: readonly IterationRecord[]): string | undefined {
  const trees = records.slice(-4).map((r) => r.endTree);
  if (trees.length < 4 || trees.some((t) => !t)) return undefined;
  const [a, b, c, d] = trees;
  if (a === c && b === d && a !== b) {
    return `the last four iterations alternated between two states of the repository (${a?.slice(0, 8)} ↔ ${b?.slice(0, 8)}): work is being done and undone`;
  }
  return undefined;
}

/** Errors compared loosely: numbers, paths, hex ids and timestamps do not make two errors different. */
export function errorSignature(error: string): string {
  return error
    .toLowerCase()
    .replace(/\d{4}-\d{2}-\d{2}[t ][\d:.]+z?/g, '<time>')
    .replace(/(?:\/[\w.-]+)+/g, '<path>')
    .replace(/\b[0-9a-f]{7,}\b/g, '<id>')
    .replace(/\d+/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The same error ending `limit` iterations in a row stops the run: more of the same will not help. */
export function trackErrors(state: RunState, record: IterationRecord, limit: number): string | undefined {
  const error = record.agent.error;
  if (!error) {
    state.errorStreak = undefined;
    return undefined;
  }
  const signature = errorSignature(error);
  state.errorStreak =
    state.errorStreak?.signature === signature ? { signature, count: state.errorStreak.count + 1 } : { signature, count: 1 };
  return state.errorStreak.count >= limit
    ? `the same error ended ${state.errorStreak.count} iterations in a row: ${error.slice(0, 200)}`
    : undefined;
}

/**
 * Sets a story aside for a human: its last findings, the gates' output and the diff so far go to
 * `.star/pending_for_human.md`, and the loop moves on to the next story instead of freezing on this one.
 */
export async function parkStory(ctx: LoopContext, state: RunState, record: IterationRecord): Promise<void> {
  const story = record.story ?? '';
  state.parked.push({ story, iteration: record.n, findings: record.findings });
  state.pendingFindings = [];
  state.stallStreak = 0;
  const start = state.workStarts[story];
  const head = await ctx.git.head();
  const diff = start && head ? (await ctx.git.changedFiles(start, head)).map((f) => `- ${f.status} ${f.path}`).join('\n') : '';
  const findings = record.findings
    .map(
      (f) =>
        `- [${f.rule}] ${f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''}${f.detail}${f.output ? `\n\n\`\`\`\n${f.output.slice(-1500).trimEnd()}\n\`\`\`` : ''}`,
    )
    .join('\n');
  await appendFile(
    ctx.paths.pendingForHuman,
    `## ${story} — parked after iteration ${record.n} (${new Date().toISOString()})\n\nIts last ${state.storyFailures[story] ?? ''} claims were rejected. The last findings:\n\n${findings || '(none)'}\n\nChanged since work on it started (${start?.slice(0, 10) ?? '?'}..${head?.slice(0, 10) ?? '?'}):\n\n${diff || '(nothing)'}\n\nTo retry it: fix what is above or clear the story's entry from \`.star/state.json\` "parked", then \`star-loop resume\`.\n\n`,
  );
}

/** PRD mode: work remains, yet every story that could be taken is parked or waits for a parked one. */
export async function parkedBlock(ctx: LoopContext, state: RunState): Promise<string | undefined> {
  if (!ctx.options.prdFile || state.parked.length === 0) return undefined;
  const now = await readPrdNow(ctx.options.prdFile);
  if (!now.loaded) return undefined;
  const passed = passedIds(now.loaded.prd);
  const parked = new Set(state.parked.map((p) => p.story));
  if (selectNextStory(now.loaded.prd, passed, parked)) return undefined;
  return `every remaining story is parked for a human or waits for one: ${[...parked].join(', ')} (see .star/pending_for_human.md)`;
}
