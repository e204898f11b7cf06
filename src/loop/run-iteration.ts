import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgentWaiting } from '../agents/run-agent-waiting.js';
import { passesMap, readPrdNow } from '../prd/read-prd-passes.js';
import { passedIds, selectNextStory } from '../prd/select-next-story.js';
import { buildPrompt } from '../prompt/build-prompt.js';
import { checkSafety, guardSnapshot } from '../safety/check-safety.js';
import { refreshFingerprint } from '../safety/fingerprints.js';
import { keepEvidence } from '../safety/keep-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import { readJournalTail } from '../state/journal.js';
import { readClaimFile } from '../state/read-claim-file.js';
import type { GateResult, IterationRecord, RunState } from '../state/state-schema.js';
import { takeHints } from '../state/take-hints.js';
import { remainingBudget } from '../usage/check-budgets.js';
import { formatDuration } from '../util/parse-duration.js';
import { planFindings, untickedItems } from '../verify/judge-claim.js';
import { verifyWork } from '../verify/verify-work.js';
import { collectClaim, hasPromise } from './collect-claim.js';
import { detectHazard } from './detect-hazard.js';
import type { LoopContext } from './loop-context.js';
import { measureMovement, sameSummary } from './measure-movement.js';
import { markStoriesPassed, settlePrd } from './settle-prd.js';

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

function lastLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !hasPromise(l));
  return lines.at(-1)?.slice(0, 300);
}

/**
 * One iteration: a fresh agent process with a fresh prompt, then star-loop settles the work tree (nothing
 * uncommitted is left or lost), reads the claim, and verifies it by running the gates itself.
 * `state.lastIteration` is advanced (and saved by the caller's `beforeAgent`) before the agent starts,
 * so a crash never reuses an iteration folder.
 */
export async function runIteration(ctx: LoopContext, state: RunState, beforeAgent: () => Promise<void>): Promise<IterationRecord> {
  const { git, paths, options, emit } = ctx;
  const n = state.lastIteration + 1;
  const index = state.iterationsThisRun + 1;
  state.lastIteration = n;
  const runDir = paths.iterationDir(n);
  await mkdir(runDir, { recursive: true });
  const startedAt = new Date();

  const prdNow = options.prdFile ? await readPrdNow(options.prdFile) : undefined;
  if (prdNow && !prdNow.loaded) throw new Error(`prd.json cannot be read at iteration ${n}: ${prdNow.error}`);
  const prd = prdNow?.loaded;
  const passed = prd ? passedIds(prd.prd) : new Set<string>();
  const story = prd ? selectNextStory(prd.prd, passed, new Set(state.parked.map((p) => p.story)), options.story) : undefined;
  const passesBefore = prd ? passesMap(prd) : new Map<string, boolean>();

  const startHead = await git.head();
  const startTree = startHead ? await git.tree(startHead) : undefined;
  // Cheat checks look at everything since the story (or the task) was first worked on.
  const workKey = story?.id ?? 'task';
  if (startHead && !state.workStarts[workKey]) state.workStarts[workKey] = startHead;
  const workStart = state.workStarts[workKey];
  // A claim is consumed: whatever an earlier iteration or a killed run left never counts.
  await rm(paths.claim, { force: true });
  const planBefore = options.mode === 'task' ? await readOptional(paths.plan) : undefined;

  const hints = await takeHints(paths, n);
  const prompt = buildPrompt({
    hints,
    templates: ctx.templates,
    iteration: n,
    gates: ctx.gates,
    findings: state.pendingFindings,
    findingsFromClaim: state.pendingFromClaim,
    journalTail: await readJournalTail(paths.journal),
    claimFile: '.star/claim.json',
    prd: prd && story ? { file: ctx.prdRelative ?? 'prd.json', prd: prd.prd, story, passed } : undefined,
    task: options.task ? { text: options.task, planFile: '.star/plan.md', plan: planBefore } : undefined,
  });
  await writeFile(join(runDir, 'prompt.md'), prompt, 'utf8');
  emit({
    type: 'iteration.started',
    iteration: n,
    index,
    maxIterations: options.maxIterations,
    story: story?.id,
    storyTitle: story?.title,
  });
  // Whatever the agent does to history, the commit it started from stays reachable on star-loop's own ref.
  const keptRefs: string[] = [];
  if (startHead) {
    keptRefs.push(`refs/star-loop/${state.runId}/${n}`);
    await git.keepRef(`refs/star-loop/${state.runId}/${n}`, startHead);
  }
  state.current = { iteration: n, story: story?.id, startedAt: startedAt.toISOString() };
  await beforeAgent();
  const guardBefore = await guardSnapshot(ctx.guard);

  const budget = remainingBudget(options, state.records);
  const remainingTime = options.maxTimeMs !== undefined ? Math.max(1000, options.maxTimeMs - state.activeMs) : Number.POSITIVE_INFINITY;
  const run = await runAgentWaiting(ctx.agents, {
    iteration: n,
    role: 'implementer',
    primary: ctx.adapter,
    fallback: ctx.fallback,
    invocation: (adapter) =>
      adapter.invocation({
        root: options.root,
        prompt,
        iteration: n,
        runDir,
        claimFile: paths.claim,
        storyId: story?.id,
        model: adapter === ctx.adapter ? options.model : undefined,
        agentCmd: options.agentCmd,
        role: 'implementer',
        baseEnv: ctx.env,
        passEnv: options.passEnv,
        promptFile: join(runDir, 'prompt.md'),
        budget,
      }),
    logFile: (attempt) => join(runDir, attempt === 1 ? 'agent.log' : `agent.${attempt}.log`),
    timeoutMs: Math.min(options.iterationTimeoutMs, remainingTime),
    timeLeftMs: options.maxTimeMs !== undefined ? options.maxTimeMs - state.activeMs : Number.POSITIVE_INFINITY,
    // A runner killed with -9 leaves its agent running: the next runner finds and ends it by this id.
    onSpawn: async (pgid) => {
      if (state.current) state.current.pgid = pgid;
      await beforeAgent();
      await refreshFingerprint(guardBefore.fingerprints, paths.state);
    },
    // star-loop's own state writes while waiting are not the agent's doing.
    save: async () => {
      await beforeAgent();
      await refreshFingerprint(guardBefore.fingerprints, paths.state);
    },
  });
  const { proc, output } = run;
  const agentError =
    proc.spawnError ??
    (run.gaveUp
      ? `${run.gaveUp.reason === 'stopped' ? 'stopped while waiting out' : `still limited after --max-wait ${formatDuration(options.maxWaitMs)}:`} ${run.gaveUp.signal.detail}`
      : proc.idle
        ? `idle: no output for ${formatDuration(options.idleTimeoutMs ?? 0)}`
        : proc.timedOut
          ? 'timed out'
          : output.isError
            ? output.errorMessage
            : proc.exitCode
              ? `exit code ${proc.exitCode}`
              : undefined);
  const recordHead = async () => ({
    n,
    index,
    story: story?.id,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    startHead,
    endHead: await git.head(),
    agent: agentRecord,
  });
  const agentRecord: IterationRecord['agent'] = {
    exitCode: proc.exitCode,
    signal: proc.signal,
    timedOut: proc.timedOut,
    isError: Boolean(agentError),
    error: agentError,
    sessionId: output.sessionId,
    name: run.adapter.name,
    usage: run.usage,
    attempts: run.attempts,
    waitedMs: run.waitedMs,
    rateLimited: run.gaveUp ? true : undefined,
  };
  emit({
    type: 'agent.finished',
    iteration: n,
    exitCode: proc.exitCode,
    signal: proc.signal,
    timedOut: proc.timedOut,
    isError: Boolean(agentError),
    error: agentError,
    durationMs: Math.round(proc.durationMs),
    agent: run.adapter.name,
    costUsd: run.usage?.costUsd,
    attempts: run.attempts,
    toolCalls: output.toolCalls,
  });

  // Safety first, before star-loop touches anything: a violation ends the run and nothing is undone.
  const working = await git.workingChanges();
  const violations = await checkSafety(ctx.guard, guardBefore, working);
  if (violations.length > 0) {
    keptRefs.push(...(await keepEvidence(ctx.git, state.runId, n, violations)));
    for (const v of violations) emit({ type: 'warning', message: `SAFETY: ${v.detail}` });
    return {
      ...(await recordHead()),
      moved: false,
      movement: [],
      claimNotes: [],
      verdict: 'no-claim',
      findings: [],
      gates: [],
      repeated: false,
      stall: false,
      safety: violations,
      keptRefs,
    };
  }

  // Nothing the agent did is lost: uncommitted work becomes a commit of its own.
  let committedForAgent: string | undefined;
  if (working.length > 0) {
    const message = `star-loop: iteration ${n} (uncommitted work)`;
    committedForAgent = await git.commitAll(message);
    if (committedForAgent) emit({ type: 'work.committed', iteration: n, commit: committedForAgent, message });
  }
  const claimNotes: string[] = [];
  let flipped: string[] = [];
  if (options.prdFile) {
    const settled = await settlePrd(git, options.prdFile, passesBefore, n);
    flipped = settled.flipped;
    if (settled.error) claimNotes.push(`prd.json could not be read after the agent: ${settled.error}`);
    if (settled.restored.length > 0) emit({ type: 'passes.restored', iteration: n, stories: settled.restored });
  }
  const endHead = await git.head();
  const endTree = endHead ? await git.tree(endHead) : undefined;
  const filesChanged = startHead && endHead && startHead !== endHead ? (await git.filesChangedBetween(startHead, endHead)).length : 0;

  const claimFile = await readClaimFile(paths.claim);
  if (claimFile.kind !== 'absent') await writeFile(join(runDir, 'claim.json'), claimFile.text, 'utf8');
  const collected = collectClaim({
    mode: options.mode,
    claimFile,
    // An error result (API failure, max turns) is not the agent's answer, whatever its text says.
    finalMessage: output.isError ? '' : output.finalMessage,
    selectedStory: story?.id,
    flippedStories: flipped,
    storyIds: new Set(passesBefore.keys()),
    passed,
  });
  claimNotes.push(...collected.notes);
  emit({ type: 'claim.read', iteration: n, claim: collected.claim, notes: claimNotes });

  const planAfter = options.mode === 'task' ? await readOptional(paths.plan) : undefined;
  const summary = collected.summary ?? lastLine(output.finalMessage);
  let verdict: IterationRecord['verdict'] = 'no-claim';
  let findings: Finding[] = [];
  let gates: GateResult[] = [];
  let verification: IterationRecord['verification'];
  let acceptedStories: string[] = [];
  const head = await git.head();
  if (collected.claim && options.verify === 'off') {
    verdict = 'accepted';
    claimNotes.push("--verify off: accepted on the agent's word alone, unverified");
  } else if ((collected.claim || options.verify === 'every') && head && workStart) {
    const outcome = await verifyWork(ctx.verify, {
      iteration: n,
      runDir,
      workStart,
      head,
      story,
      claimed: Boolean(collected.claim),
      summary,
      extraFindings: collected.claim && options.mode === 'task' ? planFindings(untickedItems(planAfter ?? '')) : [],
      save: beforeAgent,
      runId: state.runId,
      baseline: state.baseline,
      onVerifier: () => {
        state.verifierRuns += 1;
      },
      budget: remainingBudget(options, state.records),
      timeLeftMs: options.maxTimeMs !== undefined ? options.maxTimeMs - state.activeMs : Number.POSITIVE_INFINITY,
    });
    gates = outcome.gates;
    verification = outcome.verification;
    findings = outcome.verification.findings;
    if (!outcome.complete) {
      // Stopped part-way through the gates: an unverified claim is neither accepted nor held against the agent.
      findings = [];
      claimNotes.push('the claim was not verified: the run was stopped while the gates were running');
      emit({ type: 'warning', message: claimNotes.at(-1) ?? '' });
    } else if (outcome.verification.verifier?.rateLimited) {
      // The verifier's provider stayed limited: the claim is unverified, not rejected, and the run pauses.
      findings = [];
      agentRecord.rateLimited = true;
      claimNotes.push(`the claim was not verified: the verifier was rate-limited (${outcome.verification.verifier.error ?? ''})`);
      emit({ type: 'warning', message: claimNotes.at(-1) ?? '' });
    } else if (collected.claim) {
      verdict = findings.length === 0 ? 'accepted' : 'rejected';
      if (ctx.gates.length === 0 && verdict === 'accepted') {
        claimNotes.push('no gates to run: accepted on the checks and the verifier alone — review this work');
        emit({ type: 'warning', message: claimNotes.at(-1) ?? '' });
      }
    } else if (findings.length > 0) {
      claimNotes.push(`--verify every: ${findings.length} problem(s) found without a claim; handed to the next iteration`);
    }
  }
  if (collected.claim && verdict !== 'no-claim') {
    if (verdict === 'accepted' && options.prdFile) {
      acceptedStories = collected.claim.stories;
      await markStoriesPassed(git, options.prdFile, acceptedStories, n);
    }
    emit({ type: 'claim.verdict', iteration: n, verdict, stories: collected.claim.stories, findings });
  }

  const movement = measureMovement({
    startHead,
    endHead,
    startTree,
    endTree,
    filesChanged,
    acceptedStories,
    taskAccepted: verdict === 'accepted' && options.mode === 'task',
    planChanged: planAfter !== undefined && planAfter !== planBefore,
  });
  const previous = state.records.at(-1);
  agentRecord.hazard = agentRecord.rateLimited
    ? undefined
    : detectHazard({
        output,
        exitCode: proc.exitCode,
        failed: Boolean(agentError),
        claimed: Boolean(collected.claim),
        moved: movement.moved,
      });
  const planText = options.prdFile ? await readOptional(options.prdFile) : planAfter;
  return {
    ...(await recordHead()),
    endTree,
    planHash: planText === undefined ? undefined : createHash('sha1').update(planText).digest('hex'),
    moved: movement.moved,
    movement: movement.reasons,
    committedForAgent,
    claim: collected.claim,
    claimNotes,
    verdict,
    findings,
    gates,
    verification,
    summary,
    repeated: !movement.moved && sameSummary(summary, previous?.summary),
    // Waiting out a provider's limit is not the agent's failure: no stall.
    stall: !agentRecord.rateLimited && (!movement.moved || verdict === 'rejected'),
    safety: verification?.safety ?? [],
    keptRefs: [...keptRefs, ...(verification?.verifier?.keptRefs ?? [])],
  };
}
