import * as z from 'zod';
import { loopEventSchema } from '../loop/event-schema.js';
import { stopReasons } from '../state/stop-reasons.js';
import type { FleetEvent } from './fleet-events.js';

const stamped = <T extends z.ZodRawShape>(type: string, shape: T) =>
  z.object({ type: z.literal(type), time: z.string().describe('ISO time the event was emitted'), ...shape });

const worker = { slot: z.number(), story: z.string(), attempt: z.number() };

/**
 * `star-loop fleet --json` (one event per line) and `.star/fleet/log.jsonl`, as a schema: `star-loop schema
 * fleet-events`. A worker's own events come wrapped in `worker.event`, each a `star-loop schema events` event.
 */
export const fleetEventSchema = z.discriminatedUnion('type', [
  stamped('fleet.started', {
    fleetId: z.string(),
    continued: z.boolean(),
    workers: z.number(),
    branch: z.string(),
    queue: z.array(z.string()).describe('the stories ready at the start, in the order they are taken'),
  }),
  stamped('worker.started', { ...worker, branch: z.string(), worktree: z.string(), continued: z.boolean() }),
  stamped('worker.event', { ...worker, event: loopEventSchema }),
  stamped('worker.finished', {
    ...worker,
    outcome: z.enum(['merge', 'pause', 'died', 'park', 'stop-fleet']),
    exitCode: z.number().optional(),
    detail: z.string(),
  }),
  stamped('merge.started', { story: z.string(), attempt: z.number() }),
  stamped('gate.running', { gate: z.string(), command: z.string(), elapsedMs: z.number() }),
  stamped('story.merged', { story: z.string(), attempt: z.number(), commit: z.string(), order: z.number() }),
  stamped('story.returned', {
    story: z.string(),
    attempt: z.number(),
    why: z.enum(['merge-conflict', 'failed-after-merge', 'died']),
    detail: z.string(),
    next: z.enum(['requeue', 'park']),
  }),
  stamped('story.parked', { story: z.string(), attempt: z.number(), detail: z.string() }),
  stamped('warning', { message: z.string() }),
  stamped('fleet.finished', {
    fleetId: z.string(),
    stopReason: z.enum(stopReasons),
    exitCode: z.number(),
    detail: z.string(),
    merged: z.array(z.string()),
    parked: z.array(z.string()),
    remaining: z.array(z.string()),
    reportFile: z.string(),
  }),
]);

// Compile-time: every event the fleet can emit fits the published schema.
export const fleetEventFitsSchema = (event: FleetEvent & { time: string }): z.input<typeof fleetEventSchema> => event;
