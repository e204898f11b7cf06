import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import type { Story } from '../prd/prd-schema.js';
import { passesMap, readPrdNow } from '../prd/read-prd-passes.js';
import { passedIds, selectNextStory } from '../prd/select-next-story.js';
import { buildPrompt } from '../prompt/build-prompt.js';
import { readJournalTail } from '../state/journal.js';
import type { RunState } from '../state/state-schema.js';
import { takeHints } from '../state/take-hints.js';
import type { LoopContext } from './loop-context.js';

/** What an iteration knows before its agent starts. */
export interface IterationStart {
  /** The global iteration number (its `.star/runs/NNNN/` folder), and its place in this run. */
  n: number;
  index: number;
  runDir: string;
  startedAt: Date;
  /** PRD mode: the story of this iteration, the stories that pass, and every story's `passes` before. */
  story?: Story;
  passed: ReadonlySet<string>;
  passesBefore: ReadonlyMap<string, boolean>;
  /** PRD mode: prd.json as the iteration found it (put back if the agent leaves it unreadable). */
  prdBefore?: string;
  startHead?: string;
  startTree?: string;
  /** Where the work on this story (or the task) started: cheat checks look at everything since. */
  workStart?: string;
  /** Task mode: the agent's plan before it ran. */
  planBefore?: string;
  prompt: string;
  /** star-loop's refs written so far: the commit the iteration started from. */
  keptRefs: string[];
}

/** When the last agent of this run started (its iteration's start): undefined before the first. */
function lastAgentStart(state: RunState): number | undefined {
  const started = state.records.at(-1)?.startedAt;
  return started ? Date.parse(started) : undefined;
}

export async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Before the agent: pick the story, consume any old claim, take the hints, build and store the prompt,
 * keep the starting commit on star-loop's own ref, and save the iteration as under way.
 * `state.lastIteration` is advanced (and saved) before the agent starts, so a crash never reuses a folder.
 */
export async function beginIteration(
  ctx: LoopContext,
  state: RunState,
  save: () => Promise<void>,
): Promise<IterationStart> {
  const { git, paths, options } = ctx;
  const n = state.lastIteration + 1;
  const index = state.iterationsThisRun + 1;
  state.lastIteration = n;
  const runDir = paths.iterationDir(n);
  // Bounded disk: old iteration folders go, the report's evidence (safety stops, accepted claims) stays.
  const evidence = new Set(
    state.records.filter((r) => r.safety.length > 0 || r.verdict === 'accepted').map((r) => r.n),
  );
  await ctx.runs.prune(evidence);
  const startedAt = new Date();
  // What does not depend on the others, side by side. A claim is consumed: whatever an earlier iteration or
  // a killed run left never counts.
  const [, prdNow, startHead] = await Promise.all([
    mkdir(runDir, { recursive: true }),
    options.prdFile ? readPrdNow(options.prdFile) : undefined,
    git.head(),
    rm(paths.claim, { force: true }),
  ]);
  if (prdNow && !prdNow.loaded)
    throw new InputError(
      `prd.json cannot be read at iteration ${n}: ${prdNow.error}`,
      'fix prd.json (`star-loop validate prd.json` says what is wrong), then `star-loop resume`',
    );
  const prd = prdNow?.loaded;
  const passed = prd ? passedIds(prd.prd) : new Set<string>();
  const story = prd
    ? selectNextStory(prd.prd, passed, new Set(state.parked.map((p) => p.story)), options.story)
    : undefined;

  const workKey = story?.id ?? 'task';
  if (startHead && !state.workStarts[workKey]) state.workStarts[workKey] = startHead;
  const [startTree, planBefore, hints, journalTail] = await Promise.all([
    startHead ? git.tree(startHead) : undefined,
    options.mode === 'task' ? readOptional(paths.plan) : undefined,
    // Without the sandbox an agent can write .star: hints changed since the last iteration began may be its.
    takeHints(paths, n, ctx.sandbox ? undefined : lastAgentStart(state)),
    readJournalTail(paths.journal),
  ]);

  const prompt = buildPrompt({
    hints,
    templates: ctx.templates,
    iteration: n,
    gates: ctx.gates,
    findings: state.pendingFindings,
    findingsFromClaim: state.pendingFromClaim,
    journalTail,
    claimFile: '.star/claim.json',
    prd: prd && story ? { file: ctx.prdRelative ?? 'prd.json', prd: prd.prd, story, passed } : undefined,
    task: options.task ? { text: options.task, planFile: '.star/plan.md', plan: planBefore } : undefined,
  });
  await writeFile(join(runDir, 'prompt.md'), prompt, 'utf8');
  ctx.emit({
    type: 'iteration.started',
    iteration: n,
    index,
    maxIterations: options.maxIterations,
    story: story?.id,
    storyTitle: story?.title,
  });
  // Whatever the agent does to history, the commit it started from stays reachable on star-loop's own ref,
  // copied into the evidence store before the agent starts (star-loop's own commits since the last copy too).
  const keptRefs: string[] = [];
  if (startHead) {
    const ref = `refs/star-loop/${state.runId}/${n}`;
    keptRefs.push(ref);
    await git.keepRef(ref, startHead);
    const problem = await ctx.evidence.keep(state.runId, [{ ref, commit: startHead }]);
    if (problem) ctx.emit({ type: 'warning', message: problem });
  }
  state.current = { iteration: n, story: story?.id, startedAt: startedAt.toISOString() };
  await save();
  return {
    n,
    index,
    runDir,
    startedAt,
    story,
    passed,
    passesBefore: prd ? passesMap(prd) : new Map<string, boolean>(),
    prdBefore: prd?.text,
    startHead,
    startTree,
    workStart: state.workStarts[workKey],
    planBefore,
    prompt,
    keptRefs,
  };
}
