import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getAgentAdapter } from '../agents/registry.js';
import { runAgentWaiting } from '../agents/run-agent-waiting.js';
import type { LoopContext } from '../loop/loop-context.js';
import type { Story } from '../prd/prd-schema.js';
import { renderTemplate } from '../prompt/render-template.js';
import { checkSafety, guardSnapshot } from '../safety/check-safety.js';
import { refreshFingerprint } from '../safety/fingerprints.js';
import { keepEvidence } from '../safety/keep-evidence.js';
import type { Finding } from '../state/finding-schema.js';
import type { RunState, VerifierRecord } from '../state/run-state-schema.js';
import { remainingBudget } from '../usage/check-budgets.js';
import { verdictSchema } from './verdict-schema.js';

export interface VerifierInput {
  runId: string;
  iteration: number;
  runDir: string;
  base: string;
  head: string;
  story?: Story;
  task?: string;
  summary?: string;
  /** Saves the run state while a rate limit is waited out. */
  save: () => Promise<void>;
}

/** The verdict file's content as a record; anything but a valid verdict is a reject, with the reason. */
export function readVerdict(text: string | undefined, agent: string, durationMs: number): Omit<VerifierRecord, 'usage'> {
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
    raw = JSON.parse(text);
  } catch (error) {
    return reject(`the verdict is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = verdictSchema.safeParse(raw);
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
export async function runVerifier(ctx: LoopContext, state: RunState, input: VerifierInput): Promise<VerifierRecord> {
  const { options, git, paths } = ctx;
  const adapter = getAgentAdapter(options.verifierAgent);
  const verdictFile = join(paths.dir, 'verdict.json');
  await rm(verdictFile, { force: true });
  const prompt = renderTemplate('verify', ctx.templates, {
    iteration: input.iteration,
    storyId: input.story?.id,
    storyTitle: input.story?.title,
    storyDescription: input.story?.description,
    acceptanceCriteria: (input.story?.acceptanceCriteria ?? []).map((c) => `- ${c}`).join('\n') || undefined,
    task: input.task,
    summary: input.summary,
    base: input.base.slice(0, 12),
    head: input.head.slice(0, 12),
    commits: (await git.commitsBetween(input.base, input.head)).map((c) => `- ${c}`).join('\n') || '(no commits)',
    gates:
      ctx.gates.length > 0
        ? ctx.gates.map((g) => `   - ${g.name}: \`${g.command}\``).join('\n')
        : '   (no gates were found: inspect by reading and running the code)',
    verdictFile: '.star/verdict.json',
  });
  await writeFile(join(input.runDir, 'verifier-prompt.md'), prompt, 'utf8');
  const guardBefore = await guardSnapshot(ctx.guard);
  // The verifier waits out rate limits like the implementer; the fallback stands in when it is the same agent.
  const run = await runAgentWaiting(ctx.agents, {
    iteration: input.iteration,
    role: 'verifier',
    primary: adapter,
    fallback: adapter === ctx.adapter ? ctx.fallback : undefined,
    invocation: (agent) =>
      agent.invocation({
        root: options.root,
        prompt,
        iteration: input.iteration,
        runDir: input.runDir,
        claimFile: paths.claim,
        storyId: input.story?.id,
        model: agent === adapter ? options.verifierModel : undefined,
        agentCmd: options.agentCmd,
        role: 'verifier',
        verdictFile,
        baseEnv: ctx.env,
        passEnv: options.passEnv,
        promptFile: join(input.runDir, 'verifier-prompt.md'),
        budget: remainingBudget(options, state.records),
      }),
    logFile: (attempt) => join(input.runDir, attempt === 1 ? 'verifier.log' : `verifier.${attempt}.log`),
    timeoutMs: options.iterationTimeoutMs,
    timeLeftMs: options.maxTimeMs !== undefined ? options.maxTimeMs - state.activeMs : Number.POSITIVE_INFINITY,
    // Like the implementer's: a runner killed with -9 mid-verification leaves this group for resume to end.
    onSpawn: async (pgid) => {
      if (state.current) state.current.pgid = pgid;
      await input.save();
      await refreshFingerprint(guardBefore.fingerprints, paths.state);
    },
    save: async () => {
      await input.save();
      await refreshFingerprint(guardBefore.fingerprints, paths.state);
    },
  });
  const { proc } = run;
  const text = await readFile(verdictFile, 'utf8').catch(() => undefined);
  if (text !== undefined) await writeFile(join(input.runDir, 'verdict.json'), text, 'utf8');
  const record: VerifierRecord = {
    ...(proc.timedOut
      ? readVerdict(undefined, adapter.name, proc.durationMs)
      : readVerdict(text, run.adapter.name, Math.round(proc.durationMs))),
    usage: run.usage,
  };
  if (run.gaveUp && text === undefined) {
    record.rateLimited = true;
    record.error = `the verifier's provider stayed rate-limited: ${run.gaveUp.signal.detail}`;
  }
  if (proc.timedOut) {
    record.error = 'the verifier timed out';
    record.findings = [{ rule: 'verifier-no-verdict', detail: 'the verifier timed out before giving a verdict: not accepted' }];
  }
  // The verifier is held to the same boundaries as the implementer, checked before anything is committed.
  const violations = await checkSafety(ctx.guard, guardBefore);
  if (violations.length > 0) {
    record.verdict = 'reject';
    record.safety = violations;
    record.keptRefs = await keepEvidence(ctx, `${input.runId}`, input.iteration, violations);
    return record;
  }
  // The verifier only reads. Anything it changed is kept (committed), and the claim is not accepted on it.
  const changedHead = (await git.head()) !== input.head;
  if ((await git.workingChanges()).length > 0)
    await git.commitAll(`star-loop: iteration ${input.iteration} (changes the verifier made, kept for review)`);
  if (changedHead || (await git.head()) !== input.head) {
    record.verdict = 'reject';
    record.findings.push({
      rule: 'verifier-modified-repo',
      detail: 'the verifier changed the repository instead of only reading it; its changes are kept in a commit for review',
    });
  }
  return record;
}
