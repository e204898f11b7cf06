import * as z from 'zod';
import { findingSchema } from './finding-schema.js';
import { STATE_SCHEMA_VERSION } from './schema-versions.js';
import { stopReasons } from './stop-reasons.js';
import { testReportSchema } from './test-report-schema.js';

/** Ways a headless agent ends an iteration without working (src/loop/detect-hazard.ts): each a breaker. */
export const hazards = ['asked-question', 'permission-denied', 'plan-mode', 'no-tool-calls', 'idle-exit'] as const;

/** A gate run's test evidence in brief: per-test, counts only, or the exit code alone; and its totals. */
export const testSummarySchema = testReportSchema.pick({ evidence: true, runner: true, totals: true });

export const gateResultSchema = z.object({
  name: z.string(),
  command: z.string(),
  status: z.enum(['pass', 'fail', 'timeout', 'error']),
  exitCode: z.number().optional(),
  durationMs: z.number(),
  /** Tail of the gate's output (its whole output is in the iteration's gates.log). */
  tail: z.string(),
  /** What the run said about its tests (every test is in the iteration's tests.json). */
  tests: testSummarySchema.optional(),
  /** Not run again: the same tree was checked at this commit, by the same gates in this run. */
  reused: z.string().optional(),
  /** Files the gate itself changed while it ran (kept on `ref`, removed from its copy): the gate's doing. */
  modified: z.object({ files: z.array(z.string()), ref: z.string() }).optional(),
});

export const gateBaselineSchema = z.object({
  name: z.string(),
  command: z.string(),
  status: z.enum(['pass', 'fail', 'timeout', 'error']),
  /** Failing tests, where the runner's summary could be read. */
  failures: z.number().optional(),
  tests: testSummarySchema.optional(),
});

/** The gates once on the starting commit: what was already red, and how red. */
export const baselineSchema = z.object({ commit: z.string(), gates: z.array(gateBaselineSchema) });

const gateStateSchema = z.object({
  status: z.enum(['pass', 'fail', 'timeout', 'error']),
  failures: z.number().optional(),
  tests: testSummarySchema.optional(),
  modified: z.object({ files: z.array(z.string()), ref: z.string() }).optional(),
  reused: z.string().optional(),
});

export const gateComparisonSchema = z.object({
  name: z.string(),
  command: z.string(),
  baseline: gateStateSchema.optional(),
  now: gateStateSchema,
  outcome: z.enum(['ok', 'fixed', 'still-red', 'rejected']),
});

/** One agent run's receipt (src/usage/resolve-usage.ts): tokens as reported, cost with its source. */
export const usageSchema = z.object({
  model: z.string().optional(),
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  costUsd: z.number().optional(),
  costSource: z.enum(['reported', 'estimated', 'unknown']),
});

export const verifierRecordSchema = z.object({
  agent: z.string(),
  verdict: z.enum(['accept', 'reject']),
  findings: z.array(findingSchema),
  /** Why the verdict is a reject star-loop wrote itself (no verdict, malformed, timed out, …). */
  error: z.string().optional(),
  durationMs: z.number(),
  usage: usageSchema.optional(),
  /** Set when the verifier could not run because its provider stayed rate-limited past --max-wait. */
  rateLimited: z.boolean().optional(),
  /** Safety violations by the verifier itself, and the refs that keep its work reachable. */
  safety: z.array(findingSchema).optional(),
  keptRefs: z.array(z.string()).optional(),
});

/** Fail-to-pass on one claim (src/verify/check-fail-to-pass.ts): run or not (and why), what flipped. */
export const failToPassSchema = z.object({
  ran: z.boolean(),
  reason: z.string().optional(),
  durationMs: z.number().optional(),
  /** `per-test`: judged on the claim's own tests; `gates`: on the test gates' exit codes (no identities). */
  evidence: z.enum(['per-test', 'gates']).optional(),
  tests: z.array(z.string()).optional(),
  flipped: z.array(z.string()).optional(),
});
export type FailToPass = z.infer<typeof failToPassSchema>;

/** Mutants of the claimed lines (src/verify/check-mutants.ts): each with what became of it. */
export const mutantsSchema = z.object({
  ran: z.boolean(),
  reason: z.string().optional(),
  durationMs: z.number().optional(),
  mutants: z
    .array(
      z.object({
        path: z.string(),
        line: z.number(),
        change: z.string(),
        /** killed: a test failed; survived: every test passed; unloadable: the mutant does not parse (not run). */
        outcome: z.enum(['killed', 'survived', 'unloadable']),
      }),
    )
    .optional(),
  /** Survivors recorded, not held against the claim: it adds no test and --require-tests is off. */
  advisory: z.boolean().optional(),
});
export type MutantsRecord = z.infer<typeof mutantsSchema>;

export const verificationSchema = z.object({
  base: z.string(),
  head: z.string(),
  gates: z.array(gateComparisonSchema),
  findings: z.array(findingSchema),
  verifier: verifierRecordSchema.optional(),
  /** Safety violations by the verifier agent itself. */
  safety: z.array(findingSchema).optional(),
  /** The evidence from the tests: what pass-to-pass compared with, and fail-to-pass. */
  tests: z
    .object({
      reference: z.string().optional(),
      failToPass: failToPassSchema.optional(),
      mutants: mutantsSchema.optional(),
    })
    .optional(),
});

export const claimRecordSchema = z.object({
  sources: z.array(z.enum(['claim-file', 'promise', 'passes-flip'])),
  /** PRD mode: the stories claimed complete. */
  stories: z.array(z.string()),
  /** Task mode: the whole task claimed complete. */
  task: z.boolean(),
  summary: z.string().optional(),
});

export const iterationRecordSchema = z.object({
  /** Global iteration number: the `.star/runs/<NNNN>/` folder. */
  n: z.number(),
  /** 1-based position within this run. */
  index: z.number(),
  story: z.string().optional(),
  startedAt: z.string(),
  durationMs: z.number(),
  startHead: z.string().optional(),
  endHead: z.string().optional(),
  /** The content the agent left (before star-loop's own passes commit): for spotting oscillation. */
  endTree: z.string().optional(),
  /** prd.json (PRD mode) or the task plan after the iteration: for spotting a plan that flips back and forth. */
  planHash: z.string().optional(),
  agent: z.object({
    exitCode: z.number().optional(),
    signal: z.string().optional(),
    timedOut: z.boolean(),
    isError: z.boolean(),
    error: z.string().optional(),
    sessionId: z.string().optional(),
    /** The adapter that ran (the fallback agent while the primary was rate-limited). */
    name: z.string().optional(),
    usage: usageSchema.optional(),
    /** Runs of the agent in this iteration (more than one when a rate limit was waited out). */
    attempts: z.number().optional(),
    waitedMs: z.number().optional(),
    /** The provider stayed rate-limited or overloaded: not the agent's failure, not a stall. */
    rateLimited: z.boolean().optional(),
    /** A headless hazard the iteration showed (src/loop/detect-hazard.ts), with what showed it. */
    hazard: z.object({ name: z.enum(hazards), evidence: z.string().optional() }).optional(),
  }),
  moved: z.boolean(),
  movement: z.array(z.string()),
  committedForAgent: z.string().optional(),
  claim: claimRecordSchema.optional(),
  claimNotes: z.array(z.string()),
  verdict: z.enum(['accepted', 'rejected', 'no-claim']),
  findings: z.array(findingSchema),
  gates: z.array(gateResultSchema),
  verification: verificationSchema.optional(),
  summary: z.string().optional(),
  repeated: z.boolean(),
  stall: z.boolean(),
  /** Safety violations found after the agent ran: any ends the run with exit 5. */
  safety: z.array(findingSchema).default([]),
  /** star-loop's own refs that keep this iteration's commits reachable, whatever the agent did. */
  keptRefs: z.array(z.string()).default([]),
});

export const runStateSchema = z.object({
  schemaVersion: z.literal(STATE_SCHEMA_VERSION),
  runId: z.string(),
  mode: z.enum(['prd', 'task']),
  /** prd.json path or the task's first line: a different target starts a new run. */
  target: z.string(),
  status: z.enum(['running', 'paused', 'finished']),
  /** The iteration under way, for `star-loop status` (cleared when it is recorded). */
  current: z
    .object({
      iteration: z.number(),
      story: z.string().optional(),
      startedAt: z.string(),
      pgid: z.number().optional(),
      /** The environment tag every process of that agent carries: what is ended on resume, never a PID alone. */
      processTag: z.string().optional(),
      /** Set while a rate limit is being waited out (ISO time the next attempt starts). */
      waitingUntil: z.string().optional(),
    })
    .optional(),
  /** The process group of the gate running last (recorded as it starts): a runner killed with -9 leaves it. */
  gatePgid: z.number().optional(),
  gateProcessTag: z.string().optional(),
  /** The `run` arguments, so `star-loop resume` can continue the run without them. */
  argv: z.array(z.string()).optional(),
  /** The limits of the invocation that last ran it (for `star-loop status`). */
  limits: z
    .object({
      maxIterations: z.number(),
      maxTimeMs: z.number().optional(),
      maxCostUsd: z.number().optional(),
      maxTokens: z.number().optional(),
    })
    .optional(),
  /** The branch the loop commits on, and its worktree when it runs in one (--worktree). */
  branch: z.string().optional(),
  worktree: z.string().optional(),
  startedAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().optional(),
  /** Time spent running, summed over continuations (time paused does not count). */
  activeMs: z.number(),
  /** Highest iteration number used in this repository, across runs. */
  lastIteration: z.number(),
  iterationsThisRun: z.number(),
  stallStreak: z.number(),
  /** The last rejection's findings, handed to the next prompt verbatim. */
  pendingFindings: z.array(findingSchema),
  /** False when the pending findings came from checking an iteration that made no claim (--verify every). */
  pendingFromClaim: z.boolean().default(true),
  taskComplete: z.boolean(),
  /** Gates run once on the starting commit, before iteration 1. */
  baseline: baselineSchema.optional(),
  /** Why the gates cannot check a claim's tests (src/gates/gate-health.ts), when they cannot. */
  testsGap: z.string().optional(),
  /** HEAD when each story (or `task`) was first worked on: cheat checks look at the diff from there. */
  workStarts: z.record(z.string(), z.string()).default({}),
  verifierRuns: z.number().default(0),
  /** Rejected claims per story since it was last accepted: at --park-after, the story is parked. */
  storyFailures: z.record(z.string(), z.number()).default({}),
  /** Stories set aside for a human (`.star/pending_for_human.md`), so the loop can move on. */
  parked: z.array(z.object({ story: z.string(), iteration: z.number(), findings: z.array(findingSchema) })).default([]),
  /** Agents the provider rate-limited, and until when (epoch ms): the fallback runs until then. */
  limitedUntil: z.record(z.string(), z.number()).default({}),
  /** The last hazard and how many iterations in a row showed it. */
  hazardStreak: z.object({ name: z.string(), count: z.number() }).optional(),
  /** The last agent error, normalised, and how many iterations in a row ended with it. */
  errorStreak: z.object({ signature: z.string(), count: z.number() }).optional(),
  /** PRD mode, at the end: accepted stories re-checked against the final HEAD. */
  recheck: z.object({ gates: z.array(gateComparisonSchema), findings: z.array(findingSchema) }).optional(),
  accepted: z.array(
    z.object({ story: z.string().optional(), iteration: z.number(), at: z.string(), commit: z.string().optional() }),
  ),
  records: z.array(iterationRecordSchema),
  stopReason: z.enum(stopReasons).optional(),
  exitCode: z.number().optional(),
  stopDetail: z.string().optional(),
});

export type RunState = z.infer<typeof runStateSchema>;
export type IterationRecord = z.infer<typeof iterationRecordSchema>;
export type GateResult = z.infer<typeof gateResultSchema>;
export type ClaimRecord = z.infer<typeof claimRecordSchema>;
export type GateBaseline = z.infer<typeof gateBaselineSchema>;
export type Baseline = z.infer<typeof baselineSchema>;
export type GateComparison = z.infer<typeof gateComparisonSchema>;
export type Verification = z.infer<typeof verificationSchema>;
export type VerifierRecord = z.infer<typeof verifierRecordSchema>;
export type UsageRecord = z.infer<typeof usageSchema>;
