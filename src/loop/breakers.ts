import { appendFile } from 'node:fs/promises';
import { readPrdNow } from '../prd/read-prd-passes.js';
import { passedIds, selectNextStory } from '../prd/select-next-story.js';
import type { IterationRecord, RunState } from '../state/state-schema.js';
import { describeHazard, HARD_HAZARDS } from './detect-hazard.js';
import type { LoopContext } from './loop-context.js';

/** A, B, A, B in the last four values: done and undone. */
function alternates(values: ReadonlyArray<string | undefined>): [string, string] | undefined {
  if (values.length < 4 || values.some((v) => !v)) return undefined;
  const [a, b, c, d] = values as string[];
  return a === c && b === d && a !== b ? [a as string, b as string] : undefined;
}

/**
 * Oscillation: the last four iterations left the repository — or the plan (prd.json, the task plan) — in
 * states A, B, A, B: work done and undone. Each moved (so no stall), yet nothing progresses.
 */
export function detectOscillation(records: readonly IterationRecord[]): string | undefined {
  const last = records.slice(-4);
  const trees = alternates(last.map((r) => r.endTree));
  if (trees) {
    return (
      `the last four iterations alternated between two states of the repository (${trees[0].slice(0, 8)} ↔ ` +
      `${trees[1].slice(0, 8)}): work is being done and undone`
    );
  }
  if (alternates(last.map((r) => r.planHash))) {
    return (
      'the last four iterations alternated between two versions of the plan (prd.json or the task plan): it ' +
      'is being changed and changed back'
    );
  }
  return undefined;
}

/**
 * The same claim on the same story, rejected, then made again word for word without changing anything:
 * the agent re-asserts instead of working. Pure.
 */
export function detectRepeatedClaim(records: readonly IterationRecord[]): string | undefined {
  const [before, last] = records.slice(-2);
  if (!before || !last || before.verdict !== 'rejected' || !last.claim || !before.claim) return undefined;
  const same =
    last.story === before.story &&
    last.endTree === before.endTree &&
    last.claim.stories.join(',') === before.claim.stories.join(',') &&
    (last.claim.summary ?? last.summary) === (before.claim.summary ?? before.summary);
  if (!same || last.verdict === 'accepted') return undefined;
  return (
    `iteration ${last.n} repeated iteration ${before.n}'s rejected ` +
    `claim${last.story ? ` on ${last.story}` : ''} word for word without changing anything`
  );
}

/**
 * Counts the same hazard in a row. A hard hazard stops the run at once; a soft one (question, no tool
 * calls, idle exit) only names a stall: returned once it has lasted `stallAfter` iterations.
 */
export function trackHazard(
  state: RunState,
  record: IterationRecord,
  stallAfter: number,
): { hard: boolean; detail: string } | undefined {
  const hit = record.agent.hazard;
  if (!hit) {
    state.hazardStreak = undefined;
    return undefined;
  }
  const count = state.hazardStreak?.name === hit.name ? state.hazardStreak.count + 1 : 1;
  state.hazardStreak = { name: hit.name, count };
  if (HARD_HAZARDS.has(hit.name)) return { hard: true, detail: describeHazard(hit, count) };
  return count >= stallAfter ? { hard: false, detail: describeHazard(hit, count) } : undefined;
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
  // A provider's rate limit is not the agent's error.
  const error = record.agent.rateLimited ? undefined : record.agent.error;
  if (!error) {
    state.errorStreak = undefined;
    return undefined;
  }
  const signature = errorSignature(error);
  state.errorStreak =
    state.errorStreak?.signature === signature
      ? { signature, count: state.errorStreak.count + 1 }
      : { signature, count: 1 };
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
  const diff =
    start && head ? (await ctx.git.changedFiles(start, head)).map((f) => `- ${f.status} ${f.path}`).join('\n') : '';
  const findings = record.findings
    .map(
      (f) =>
        `- [${f.rule}] ` +
        `${
          f.file ? `${f.file}${f.line ? `:${f.line}` : ''}: ` : ''
        }${f.detail}${f.output ? `\n\n\`\`\`\n${f.output.slice(-1500).trimEnd()}\n\`\`\`` : ''}`,
    )
    .join('\n');
  await appendFile(
    ctx.paths.pendingForHuman,
    `## ${story} — parked after iteration ${record.n} (${new Date().toISOString()})\n\nIts last ` +
      `${state.storyFailures[story] ?? ''} claims were rejected. The last ` +
      `findings:\n\n${findings || '(none)'}\n\nChanged since work on it started ` +
      `(${start?.slice(0, 10) ?? '?'}..${head?.slice(0, 10) ?? '?'}):\n\n${diff || '(nothing)'}\n\nTo retry ` +
      `it: fix what is above or clear the story's entry from \`.star/state.json\` "parked", then ` +
      `\`star-loop resume\`.\n\n`,
  );
}

/** PRD mode: work remains, yet every story that could be taken is parked or waits for a parked one. */
export async function parkedBlock(ctx: LoopContext, state: RunState): Promise<string | undefined> {
  if (!ctx.options.prdFile || state.parked.length === 0) return undefined;
  const now = await readPrdNow(ctx.options.prdFile);
  if (!now.loaded) return undefined;
  const passed = passedIds(now.loaded.prd);
  const parked = new Set(state.parked.map((p) => p.story));
  if (selectNextStory(now.loaded.prd, passed, parked, ctx.options.story)) return undefined;
  return (
    `every remaining story is parked for a human or waits for one: ${[...parked].join(', ')} (see ` +
    `.star/pending_for_human.md)`
  );
}
