import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type AgentBox, openAgentBox } from '../agents/agent-box.js';
import { type AgentRun, runAgentWaiting } from '../agents/run-agent-waiting.js';
import type { Story } from '../prd/prd-schema.js';
import { buildVerifierPrompt } from '../prompt/build-verifier-prompt.js';
import { checkSafety, type GuardSnapshot, guardSnapshot } from '../safety/check-safety.js';
import { refreshFingerprint } from '../safety/fingerprints.js';
import { keepEvidence } from '../safety/keep-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import type { VerifierRecord } from '../state/state-schema.js';
import { ONE_OFF_PARSE } from '../util/one-off-parse.js';
import { parseJson } from '../util/parse-json.js';
import { verdictSchema } from './verdict-schema.js';
import type { VerifyContext } from './verify-context.js';

export interface VerifierInput {
  runId: string;
  iteration: number;
  runDir: string;
  base: string;
  head: string;
  story?: Story;
  task?: string;
  summary?: string;
  /** What star-loop's own runs of the tests showed, for the brief. */
  evidence?: readonly string[];
  /** Saves the run state while a rate limit is waited out. */
  save: () => Promise<void>;
  /** What is left of the run's budgets for this agent run, and of --max-time. */
  budget: { maxCostUsd?: number; maxTurns?: number };
  timeLeftMs: number;
}

/** The verdict file's content as a record; anything but a valid verdict is a reject, with the reason. */
export function readVerdict(
  text: string | undefined,
  agent: string,
  durationMs: number,
): Omit<VerifierRecord, 'usage'> {
  const reject = (error: string): Omit<VerifierRecord, 'usage'> => ({
    agent,
    verdict: 'reject',
    findings: [
      {
        rule: 'verifier-no-verdict',
        detail: `the verifier gave no usable verdict (${error}): a claim nobody could confirm is not accepted`,
      },
    ],
    error,
    durationMs,
  });
  if (text === undefined) return reject('no verdict file was written');
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (error) {
    return reject(`the verdict is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = verdictSchema.safeParse(raw, ONE_OFF_PARSE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return reject(`verdict ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`);
  }
  const findings: Finding[] = parsed.data.findings.map((f) => ({ ...f, detail: `verifier: ${f.detail}` }));
  if (parsed.data.verdict === 'reject' && findings.length === 0) {
    findings.push({ rule: 'verifier-rejected', detail: 'verifier: rejected the claim without naming a finding' });
  }
  return { agent, verdict: parsed.data.verdict, findings, durationMs };
}

/**
 * A fresh agent with no memory of the implementation, briefed from prompts/verify.md to prove the claim
 * wrong. Its verdict travels through a file; it must leave the repository as it found it.
 */
export async function runVerifier(ctx: VerifyContext, input: VerifierInput): Promise<VerifierRecord> {
  // Where the verdict comes back. In the sandbox: the scratch `.star` the verifier sees, read once the sandbox
  // is gone. Without one: a fresh private folder only this run is told of, so nothing an implementer planted
  // (a background process rewriting `.star/verdict.json`) knows where to write.
  const inbox = await mkdtemp(join(tmpdir(), 'star-loop-verdict-'));
  try {
    return await verifyInto(ctx, input, join(inbox, 'verdict.json'));
  } finally {
    await rm(inbox, { recursive: true, force: true });
  }
}

/** The verifier's run, its verdict taken from `received`, and the boundaries it is held to. */
async function verifyInto(ctx: VerifyContext, input: VerifierInput, received: string): Promise<VerifierRecord> {
  const { git, verifier } = ctx;
  const { adapter, verdictFile } = verifier;
  const told = ctx.sandbox ? verdictFile : received;
  const prompt = buildVerifierPrompt({
    templates: verifier.templates,
    iteration: input.iteration,
    story: input.story,
    task: input.task,
    summary: input.summary,
    base: input.base,
    head: input.head,
    commits: await git.commitsBetween(input.base, input.head),
    gates: ctx.gates,
    verdictFile: ctx.sandbox ? relative(ctx.root, verdictFile) : received,
    evidence: input.evidence,
  });
  await writeFile(join(input.runDir, 'verifier-prompt.md'), prompt, 'utf8');
  const guardBefore = await guardSnapshot(verifier.guard);
  // star-loop's own state writes while the verifier runs are not the verifier's doing.
  const refresh = async () => {
    await input.save();
    await refreshFingerprint(guardBefore.fingerprints, join(verifier.guard.starDir, 'state.json'));
  };
  const box = await verifierBox(ctx, input);
  // The verifier waits out rate limits like the implementer; the fallback stands in when it is the same agent.
  const run = await runAgentWaiting(verifier.agents, {
    iteration: input.iteration,
    role: 'verifier',
    primary: adapter,
    fallback: verifier.fallback,
    invocation: (agent) =>
      agent.invocation({
        root: ctx.root,
        prompt,
        iteration: input.iteration,
        runDir: input.runDir,
        claimFile: verifier.claimFile,
        storyId: input.story?.id,
        model: agent === adapter ? verifier.model : undefined,
        agentCmd: verifier.agentCmd,
        role: 'verifier',
        verdictFile: told,
        baseEnv: ctx.env,
        passEnv: verifier.passEnv,
        promptFile: join(input.runDir, 'verifier-prompt.md'),
        budget: input.budget,
      }),
    logFile: (attempt) => join(input.runDir, attempt === 1 ? 'verifier.log' : `verifier.${attempt}.log`),
    timeoutMs: verifier.timeoutMs,
    timeLeftMs: input.timeLeftMs,
    // Like the implementer's: a runner killed with -9 mid-verification leaves this group for resume to end.
    onSpawn: async (pgid, tag) => {
      const { current } = verifier.agents.state;
      if (current) Object.assign(current, { pgid, processTag: tag });
      await refresh();
    },
    save: refresh,
    wrap: box?.wrap,
  }).finally(async () => {
    // The verdict is read back once every process in the sandbox has ended: nothing rewrites it after.
    await box?.finish([{ from: 'verdict.json', to: received }]);
  });
  const text = await readFile(received, 'utf8').catch(() => undefined);
  if (text !== undefined) await writeFile(join(input.runDir, 'verdict.json'), text, 'utf8');
  const record = verifierRecordOf(run, text, adapter.name);
  await holdToBoundaries(ctx, input, record, guardBefore);
  return record;
}

/**
 * The verifier's sandbox, when the run has one: a throw-away copy of the commit it judges, mounted in
 * the work tree's place (it may build and run tests there; whatever it writes is thrown away with it), and
 * a scratch `.star` with its prompt and the claim. The real work tree, `.git` and `.star` it cannot write.
 */
async function verifierBox(
  ctx: VerifyContext,
  input: VerifierInput,
): Promise<{ wrap: AgentBox['wrap']; finish: AgentBox['finish'] } | undefined> {
  const { sandbox, git, verifier } = ctx;
  if (!sandbox) return undefined;
  const tree = await mkdtemp(join(tmpdir(), 'star-loop-verify-'));
  const removeTree = () => rm(tree, { recursive: true, force: true });
  await git.exportCommit(input.head, tree).catch(async (error: unknown) => {
    await removeTree();
    throw error;
  });
  const starDir = verifier.guard.starDir;
  const box = await openAgentBox({
    sandbox,
    adapters: [verifier.adapter, verifier.fallback],
    env: ctx.env,
    starDir,
    files: [join(relative(starDir, input.runDir), 'verifier-prompt.md'), relative(starDir, verifier.claimFile)],
    readOnly: [],
    tree,
  }).catch(async (error: unknown) => {
    await removeTree();
    throw error;
  });
  return {
    wrap: box.wrap,
    async finish(harvest) {
      try {
        return await box.finish(harvest);
      } finally {
        await removeTree();
      }
    },
  };
}

/** The record of the verifier's run: its verdict file read, or the reason there is no verdict. */
function verifierRecordOf(run: AgentRun, text: string | undefined, agent: string): VerifierRecord {
  const { proc } = run;
  const record: VerifierRecord = {
    ...(proc.timedOut
      ? readVerdict(undefined, agent, proc.durationMs)
      : readVerdict(text, run.adapter.name, Math.round(proc.durationMs))),
    usage: run.usage,
  };
  if (run.gaveUp && text === undefined) {
    record.rateLimited = true;
    record.error = `the verifier's provider stayed rate-limited: ${run.gaveUp.signal.detail}`;
  }
  if (proc.timedOut) {
    record.error = 'the verifier timed out';
    record.findings = [
      { rule: 'verifier-no-verdict', detail: 'the verifier timed out before giving a verdict: not accepted' },
    ];
  }
  return record;
}

/**
 * The verifier is held to the implementer's boundaries, checked before anything is committed; and it only
 * reads: anything it changed is kept (committed) for review, and the claim is not accepted on its word.
 */
async function holdToBoundaries(
  ctx: VerifyContext,
  input: VerifierInput,
  record: VerifierRecord,
  before: GuardSnapshot,
): Promise<void> {
  const { git } = ctx;
  const violations = await checkSafety(ctx.verifier.guard, before);
  if (violations.length > 0) {
    record.verdict = 'reject';
    record.safety = violations;
    record.keptRefs = await keepEvidence(git, `${input.runId}`, input.iteration, violations);
    return;
  }
  const changedHead = (await git.head()) !== input.head;
  if ((await git.workingChanges()).length > 0)
    await git.commitAll(`star-loop: iteration ${input.iteration} (changes the verifier made, kept for review)`);
  if (changedHead || (await git.head()) !== input.head) {
    record.verdict = 'reject';
    record.findings.push({
      rule: 'verifier-modified-repo',
      detail:
        'the verifier changed the repository instead of only reading it; its changes are kept in a commit for review',
    });
  }
}
