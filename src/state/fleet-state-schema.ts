import * as z from 'zod';
import { findingSchema } from './finding-schema.js';
import { FLEET_SCHEMA_VERSION } from './schema-versions.js';
import { baselineSchema } from './state-schema.js';
import { stopReasons } from './stop-reasons.js';

/**
 * A story's place in the fleet's queue. queued → running → (merging → merged) | parked; a merge conflict,
 * a gate that fails only after the merge, or a worker that dies sends it back to queued.
 */
export const storyStatuses = ['queued', 'running', 'merging', 'merged', 'parked'] as const;
export type FleetStoryStatus = (typeof storyStatuses)[number];

export const fleetStorySchema = z.object({
  status: z.enum(storyStatuses),
  /** 1 for the first worker on this story; each return to the queue after a merge starts a new attempt. */
  attempt: z.number(),
  /** Returns after a merge conflict or a gate that failed after the merge: at --max-returns it is parked. */
  returns: z.number(),
  /** Workers that died on this story (ended by a signal or a crash): replaced, up to --max-returns times. */
  deaths: z.number(),
  /** The current attempt's branch and worktree. */
  branch: z.string().optional(),
  worktree: z.string().optional(),
  /** Earlier attempts' branches, kept (never deleted) after a return. */
  setAside: z.array(z.string()).default([]),
  /** What the next attempt's agent is told: the conflict or the failure that sent the story back. */
  findings: z.array(findingSchema).default([]),
  /** Why it is parked, or how its last worker ended. */
  detail: z.string().optional(),
  /** Verified on its branch and waiting for (or in) the merge: the branch's commit. */
  verifiedCommit: z.string().optional(),
  /** The merge commit on the integration branch. */
  mergeCommit: z.string().optional(),
  /** The agent runs this story cost, over all attempts. */
  iterations: z.number().default(0),
  costUsd: z.number().default(0),
  /** Agent runs that reported no cost (and had no price): the cost is then a floor. */
  unknownCostRuns: z.number().default(0),
  tokens: z.number().default(0),
  /** What the current attempt's worker run has spent: its own budget check counts it (see run-fleet.ts). */
  runCostUsd: z.number().default(0),
  runTokens: z.number().default(0),
});
export type FleetStory = z.infer<typeof fleetStorySchema>;

/** A story the fleet has not worked on yet: queued, first attempt. */
export function newFleetStory(): FleetStory {
  return {
    status: 'queued',
    attempt: 1,
    returns: 0,
    deaths: 0,
    setAside: [],
    findings: [],
    iterations: 0,
    costUsd: 0,
    unknownCostRuns: 0,
    tokens: 0,
    runCostUsd: 0,
    runTokens: 0,
  };
}

export const workerPhases = ['starting', 'agent', 'gates', 'verifying', 'waiting', 'stopping'] as const;

/** A worker process at work on one story (only while it runs). */
export const fleetWorkerSchema = z.object({
  slot: z.number(),
  story: z.string(),
  attempt: z.number(),
  pid: z.number().optional(),
  startedAt: z.string(),
  iteration: z.number().optional(),
  phase: z.enum(workerPhases),
  phaseAt: z.string(),
});
export type FleetWorker = z.infer<typeof fleetWorkerSchema>;

export const timelineEvents = [
  'started',
  'resumed',
  'iteration',
  'verified',
  'stopped',
  'died',
  'merge-conflict',
  'failed-after-merge',
  'merged',
  'requeued',
  'parked',
] as const;

export const timelineEntrySchema = z.object({
  at: z.string(),
  story: z.string(),
  attempt: z.number(),
  slot: z.number().optional(),
  event: z.enum(timelineEvents),
  detail: z.string().optional(),
});
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

/** `.star/fleet.json`: everything a fleet needs to continue after a crash, written after every change. */
export const fleetStateSchema = z.object({
  schemaVersion: z.literal(FLEET_SCHEMA_VERSION),
  fleetId: z.string(),
  /** prd.json relative to the repository root. */
  prd: z.string(),
  /** The integration branch (the PRD's branchName), checked out in the repository root. */
  branch: z.string(),
  workers: z.number(),
  status: z.enum(['running', 'paused', 'finished']),
  /** The `fleet` arguments, so `star-loop resume` continues it. */
  argv: z.array(z.string()),
  startedAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().optional(),
  /** Time spent running, summed over continuations. */
  activeMs: z.number(),
  limits: z.object({
    maxIterations: z.number(),
    maxTimeMs: z.number().optional(),
    maxCostUsd: z.number().optional(),
    maxTokens: z.number().optional(),
  }),
  /** Budgets of the whole fleet: iterations granted to workers, verifier runs, cost and tokens reported. */
  spent: z.object({
    iterations: z.number(),
    verifierRuns: z.number(),
    costUsd: z.number(),
    tokens: z.number(),
    unknownCostRuns: z.number(),
    /** The dearest iteration so far: the next one is assumed to need as much. */
    dearestCostUsd: z.number(),
    dearestTokens: z.number(),
  }),
  /** Gates on the integration branch before any merge: post-merge results are compared with these. */
  baseline: baselineSchema.optional(),
  stories: z.record(z.string(), fleetStorySchema),
  running: z.array(fleetWorkerSchema),
  /** The integration branch's merges, in order. */
  merges: z.array(z.object({ story: z.string(), commit: z.string(), at: z.string(), attempt: z.number() })),
  timeline: z.array(timelineEntrySchema),
  stopReason: z.enum(stopReasons).optional(),
  exitCode: z.number().optional(),
  stopDetail: z.string().optional(),
});
export type FleetState = z.infer<typeof fleetStateSchema>;
