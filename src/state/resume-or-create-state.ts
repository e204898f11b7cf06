import { randomBytes } from 'node:crypto';
import { STATE_SCHEMA_VERSION } from './schema-versions.js';
import type { RunState } from './state-schema.js';

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * The state to run with: the previous run continued when it paused (or its runner died) on the same
 * target, otherwise a new run that keeps numbering iterations after the last one in this repository.
 */
export function resumeOrCreateState(
  previous: RunState | undefined,
  mode: RunState['mode'],
  target: string,
  now = new Date(),
): { state: RunState; continued: boolean } {
  if (previous && previous.status !== 'finished' && previous.mode === mode && previous.target === target) {
    return {
      continued: true,
      state: {
        ...previous,
        status: 'running',
        stallStreak: 0,
        stopReason: undefined,
        stopDetail: undefined,
        exitCode: undefined,
        endedAt: undefined,
      },
    };
  }
  const at = now.toISOString();
  return {
    continued: false,
    state: {
      schemaVersion: STATE_SCHEMA_VERSION,
      runId: newRunId(now),
      mode,
      target,
      status: 'running',
      startedAt: at,
      updatedAt: at,
      activeMs: 0,
      lastIteration: previous?.lastIteration ?? 0,
      iterationsThisRun: 0,
      stallStreak: 0,
      pendingFindings: [],
      pendingFromClaim: true,
      taskComplete: false,
      workStarts: {},
      verifierRuns: 0,
      storyFailures: {},
      parked: [],
      limitedUntil: {},
      accepted: [],
      records: [],
    },
  };
}
