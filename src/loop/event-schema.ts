import * as z from 'zod';
import type { Plan } from '../recon/plan.js';
import { findingSchema } from '../state/finding-schema.js';
import {
  claimRecordSchema,
  gateBaselineSchema,
  gateResultSchema,
  iterationRecordSchema,
} from '../state/state-schema.js';
import { stopReasons } from '../state/stop-reasons.js';
import type { LoopEvent } from './events.js';

const stamped = <T extends z.ZodRawShape>(type: string, shape: T) =>
  z.object({ type: z.literal(type), time: z.string().describe('ISO time the event was emitted'), ...shape });

/**
 * The `--json` events (one per line) and `.star/log.jsonl`, as a schema: `star-loop schema events` prints
 * it as JSON Schema. The TypeScript type in events.ts is checked against it below, so the two cannot drift.
 */
export const loopEventSchema = z.discriminatedUnion('type', [
  stamped('run.started', {
    runId: z.string(),
    continued: z.boolean(),
    plan: z.custom<Plan>((v) => typeof v === 'object' && v !== null).describe('the recon plan, as report.json "plan"'),
  }),
  stamped('iteration.started', {
    iteration: z.number(),
    index: z.number(),
    maxIterations: z.number(),
    story: z.string().optional(),
    storyTitle: z.string().optional(),
  }),
  stamped('agent.rate-limited', {
    iteration: z.number(),
    agent: z.string(),
    attempt: z.number(),
    detail: z.string(),
    next: z.string(),
    waitMs: z.number(),
    resetAt: z.string().optional(),
  }),
  stamped('agent.finished', {
    iteration: z.number(),
    exitCode: z.number().optional(),
    signal: z.string().optional(),
    timedOut: z.boolean(),
    isError: z.boolean(),
    error: z.string().optional(),
    durationMs: z.number(),
    agent: z.string(),
    costUsd: z.number().optional(),
    attempts: z.number(),
    toolCalls: z.number().optional(),
  }),
  stamped('agent.activity', {
    iteration: z.number(),
    role: z.enum(['implementer', 'verifier']),
    tool: z.string().optional().describe('the tool the agent called, when its output says'),
    text: z.string().describe('one short line: a tool call, a file touched, or (--verbose) a line of output'),
  }),
  stamped('work.committed', { iteration: z.number(), commit: z.string(), message: z.string() }),
  stamped('passes.restored', { iteration: z.number(), stories: z.array(z.string()) }),
  stamped('claim.read', { iteration: z.number(), claim: claimRecordSchema.optional(), notes: z.array(z.string()) }),
  stamped('gate.finished', { iteration: z.number(), result: gateResultSchema.omit({ tail: true }) }),
  stamped('gate.running', { gate: z.string(), command: z.string(), elapsedMs: z.number() }),
  stamped('baseline.finished', {
    gates: z.array(gateBaselineSchema),
  }),
  stamped('verifier.started', { iteration: z.number(), agent: z.string() }),
  stamped('verifier.finished', {
    iteration: z.number(),
    verdict: z.enum(['accept', 'reject']),
    error: z.string().optional(),
  }),
  stamped('claim.verdict', {
    iteration: z.number(),
    verdict: z.enum(['accepted', 'rejected']),
    stories: z.array(z.string()),
    findings: z.array(findingSchema),
  }),
  stamped('iteration.finished', { record: iterationRecordSchema, stallStreak: z.number() }),
  stamped('warning', { message: z.string() }),
  stamped('run.finished', {
    runId: z.string(),
    stopReason: z.enum(stopReasons),
    exitCode: z.number(),
    detail: z.string(),
    reportFile: z.string(),
    iterations: z.number(),
    accepted: z.number(),
    rejected: z.number(),
    remaining: z.array(z.string()),
  }),
]);

// Compile-time: every event the loop can emit fits the published schema.
export const eventFitsSchema = (event: LoopEvent & { time: string }): z.input<typeof loopEventSchema> => event;
