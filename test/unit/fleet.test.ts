import { describe, expect, it } from 'vitest';
import {
  decideFleetEnd,
  decidePermit,
  decideReturn,
  decideWorkerOutcome,
  fleetReadyStories,
  MAX_IDLE_WAIT_MS,
  nextIdleWait,
  type PermitInput,
  setAsideBranch,
  storyBranch,
  unfinishedStories,
} from '../../src/fleet/decide-fleet.js';
import { decideFleetStart, workerPassArgs } from '../../src/fleet/fleet-plan.js';
import { workerArgs } from '../../src/fleet/run-worker.js';
import type { Prd } from '../../src/prd/prd-schema.js';
import { describeFleetStatus, renderFleetStatus } from '../../src/report/describe-fleet-status.js';
import { renderFleetLine } from '../../src/report/render-fleet-line.js';
import { type FleetState, type FleetStory, newFleetStory } from '../../src/state/fleet-state-schema.js';

const story = (id: string, extra: Partial<Prd['userStories'][number]> = {}) => ({
  id,
  title: id,
  passes: false,
  ...extra,
});
const prd = (...stories: Prd['userStories']): Prd => ({ branchName: 'work', userStories: stories });
const entry = (status: FleetStory['status'], extra: Partial<FleetStory> = {}): FleetStory => ({
  ...newFleetStory(),
  status,
  ...extra,
});

describe('the fleet queue', () => {
  it('branches: <branchName>--<id> (git cannot hold both `work` and `work/US-1`), ids made safe for refs', () => {
    expect(storyBranch('ralph/feature', 'US-001')).toBe('ralph/feature--US-001');
    expect(storyBranch('work', 'story 7: login')).toBe('work--story-7-login');
    expect(setAsideBranch('work', 'US-001', 1)).toBe('work--US-001--attempt-1');
  });

  it('ready: priority order; dependencies count once merged (or passing); taken and parked stories are left out', () => {
    const p = prd(
      story('A', { priority: 2 }),
      story('B', { priority: 1 }),
      story('C', { dependsOn: ['A'] }),
      story('D', { passes: true }),
    );
    expect(fleetReadyStories(p, { stories: {} })).toEqual(['B', 'A']);
    expect(fleetReadyStories(p, { stories: { B: entry('running'), A: entry('merging') } })).toEqual([]);
    expect(fleetReadyStories(p, { stories: { A: entry('merged') } })).toEqual(['B', 'C']);
    expect(fleetReadyStories(p, { stories: { A: entry('parked') } })).toEqual(['B']);
    // A story back in the queue (after a conflict) is ready again.
    expect(fleetReadyStories(p, { stories: { B: entry('queued', { attempt: 2 }) } })).toEqual(['B', 'A']);
    expect(unfinishedStories(p, { stories: { A: entry('merged') } })).toEqual(['B', 'C']);
  });
});

describe('shared budgets: the permit before each worker iteration', () => {
  const base: PermitInput = {
    limits: { maxIterations: 10 },
    spent: {
      iterations: 0,
      verifierRuns: 0,
      costUsd: 0,
      tokens: 0,
      unknownCostRuns: 0,
      dearestCostUsd: 0,
      dearestTokens: 0,
    },
    unverified: 0,
    inflight: 0,
    verify: true,
    activeMs: 0,
  };
  const spent = (extra: Partial<PermitInput['spent']>) => ({ ...base.spent, ...extra });

  it.each([
    ['granted with room', base, true, undefined],
    [
      'a stopping fleet refuses',
      { ...base, stopping: { reason: 'stopped' as const, detail: 'stopped by the user' } },
      false,
      'stopped',
    ],
    [
      'iterations and verifier runs of every worker count',
      { ...base, spent: spent({ iterations: 7, verifierRuns: 2 }) },
      false,
      'max-iterations',
    ],
    [
      'one verifier run is kept for each iteration under way',
      { ...base, spent: spent({ iterations: 5 }), unverified: 4 },
      false,
      'max-iterations',
    ],
    [
      '…and with one fewer under way there is room',
      { ...base, spent: spent({ iterations: 5 }), unverified: 3 },
      true,
      undefined,
    ],
    ['…but not when verification is off', { ...base, spent: spent({ iterations: 9 }), verify: false }, true, undefined],
    ['time', { ...base, limits: { maxIterations: 10, maxTimeMs: 1000 }, activeMs: 1000 }, false, 'max-time'],
    [
      'cost: the dearest iteration must still fit',
      { ...base, limits: { maxIterations: 10, maxCostUsd: 1 }, spent: spent({ costUsd: 0.7, dearestCostUsd: 0.4 }) },
      false,
      'max-cost',
    ],
    [
      'tokens',
      { ...base, limits: { maxIterations: 10, maxTokens: 100 }, spent: spent({ tokens: 100 }) },
      false,
      'max-tokens',
    ],
    [
      'cost: iterations under way count as the dearest so far',
      {
        ...base,
        limits: { maxIterations: 10, maxCostUsd: 1.6 },
        spent: spent({ costUsd: 1, dearestCostUsd: 0.5 }),
        inflight: 1,
      },
      false,
      'max-cost',
    ],
    [
      '…and with none under way the same iteration fits',
      { ...base, limits: { maxIterations: 10, maxCostUsd: 1.6 }, spent: spent({ costUsd: 1, dearestCostUsd: 0.5 }) },
      true,
      undefined,
    ],
  ])('%s', (_name, input, granted, reason) => {
    const answer = decidePermit(input);
    expect(answer.granted).toBe(granted);
    if (!answer.granted) expect(answer.reason).toBe(reason);
  });
});

describe('what a worker’s end means', () => {
  const end = { stderrTail: '', fleetStopping: false };
  it.each([
    [
      'verified: to the merge',
      { ...end, exitCode: 0, finished: { stopReason: 'complete' as const, detail: '' } },
      'merge',
    ],
    [
      'stopped by the fleet: paused',
      { ...end, fleetStopping: true, exitCode: 6, finished: { stopReason: 'stopped' as const, detail: '' } },
      'pause',
    ],
    [
      'stopped from outside: replaced',
      { ...end, exitCode: 6, finished: { stopReason: 'stopped' as const, detail: '' } },
      'died',
    ],
    ['killed: replaced', { ...end, signal: 'SIGKILL' }, 'died'],
    ['crashed: replaced', { ...end, exitCode: 1, stderrTail: 'star-loop: internal error: boom' }, 'died'],
    [
      'refused to start: the fleet stops',
      { ...end, exitCode: 4, stderrTail: 'star-loop: another star-loop is running' },
      'stop-fleet',
    ],
    [
      'parked or stalled: parked, the others go on',
      { ...end, exitCode: 4, finished: { stopReason: 'parked' as const, detail: 'x' } },
      'park',
    ],
    ['a stall', { ...end, exitCode: 4, finished: { stopReason: 'stalled' as const, detail: 'x' } }, 'park'],
    [
      'a safety stop ends the fleet',
      { ...end, exitCode: 5, finished: { stopReason: 'safety' as const, detail: 'x' } },
      'stop-fleet',
    ],
    [
      'a budget ends the fleet',
      { ...end, exitCode: 3, finished: { stopReason: 'max-iterations' as const, detail: 'x' } },
      'stop-fleet',
    ],
  ])('%s', (_name, input, kind) => {
    expect(decideWorkerOutcome(input).kind).toBe(kind);
  });

  it('the refusal is quoted, so the fleet can say why', () => {
    const outcome = decideWorkerOutcome({
      stderrTail: 'star-loop: prd.json: bad\n  fix: x\n  (exit 2)',
      exitCode: 2,
      fleetStopping: false,
    });
    expect(outcome).toMatchObject({ kind: 'stop-fleet', reason: 'refused' });
    expect(outcome.kind === 'stop-fleet' && outcome.detail).toContain('prd.json: bad');
  });

  it('returns and deaths: queued again until --max-returns, then parked', () => {
    expect(decideReturn(entry('merging', { returns: 1 }), 'return', 2)).toBe('requeue');
    expect(decideReturn(entry('merging', { returns: 2 }), 'return', 2)).toBe('park');
    expect(decideReturn(entry('running', { deaths: 1, returns: 5 }), 'death', 2)).toBe('requeue');
    expect(decideReturn(entry('running', { deaths: 2 }), 'death', 2)).toBe('park');
  });
});

describe('how a fleet ends, and how long it waits', () => {
  it.each([
    ['every story merged', { unfinished: [], parked: [] }, 'complete'],
    [
      '…even when a stop came last',
      { unfinished: [], parked: [], stopping: { reason: 'stopped' as const, detail: '' } },
      'complete',
    ],
    [
      'a safety stop is never complete',
      { unfinished: [], parked: [], stopping: { reason: 'safety' as const, detail: 'x' } },
      'safety',
    ],
    [
      'a stop with work left',
      { unfinished: ['A'], parked: [], stopping: { reason: 'stopped' as const, detail: '' } },
      'stopped',
    ],
    ['parked stories (and those waiting for them)', { unfinished: ['A', 'B'], parked: ['A'] }, 'parked'],
  ])('%s', (_name, input, reason) => {
    expect(decideFleetEnd(input).reason).toBe(reason);
  });

  it('the idle wait doubles while nothing can start, up to a minute, and resets when a worker starts', () => {
    let wait = 1000;
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      wait = nextIdleWait(wait, false, 1000);
      waits.push(wait);
    }
    expect(waits).toEqual([2000, 4000, 8000, 16000, 32000, MAX_IDLE_WAIT_MS, MAX_IDLE_WAIT_MS, MAX_IDLE_WAIT_MS]);
    expect(nextIdleWait(wait, true, 1000)).toBe(1000);
  });
});

describe('workers and what the fleet shows', () => {
  it('a worker is `run --story` on its branch with the fleet’s remaining budgets and the flags it passes on', () => {
    const passArgs = workerPassArgs({
      agent: 'codex',
      model: 'm',
      protect: ['a/**', 'b'],
      allowPush: true,
      json: true,
      maxIterations: '9',
      workers: '3',
    } as never);
    expect(passArgs).toEqual([
      '--agent',
      'codex',
      '--model',
      'm',
      '--allow-push',
      '--protect',
      'a/**',
      '--protect',
      'b',
    ]);
    expect(
      workerArgs({
        prdFile: '/w/prd.json',
        story: 'US-1',
        branch: 'work--US-1',
        passArgs,
        budgets: { maxIterations: 7, maxTimeMs: 1500.4, maxCostUsd: 0.5 },
      }),
    ).toEqual([
      'run',
      '--prd',
      '/w/prd.json',
      '--story',
      'US-1',
      '--branch',
      'work--US-1',
      '--json',
      '--max-iterations',
      '7',
      '--max-time',
      '1500ms',
      '--max-cost',
      '0.500000',
      ...passArgs,
    ]);
  });

  const state: FleetState = {
    schemaVersion: 1,
    fleetId: 'F1',
    prd: 'prd.json',
    branch: 'work',
    workers: 2,
    status: 'running',
    argv: [],
    startedAt: '2026-11-30T00:00:00.000Z',
    updatedAt: '2026-11-30T00:00:00.000Z',
    activeMs: 65_000,
    limits: { maxIterations: 20, maxCostUsd: 5 },
    spent: {
      iterations: 3,
      verifierRuns: 1,
      costUsd: 1.25,
      tokens: 900,
      unknownCostRuns: 0,
      dearestCostUsd: 0.5,
      dearestTokens: 400,
    },
    stories: { A: entry('merged'), B: entry('running'), C: entry('queued') },
    running: [
      {
        slot: 2,
        story: 'B',
        attempt: 1,
        pid: 42,
        startedAt: '2026-11-30T00:00:00.000Z',
        iteration: 3,
        phase: 'verifying',
        phaseAt: '',
      },
    ],
    merges: [{ story: 'A', commit: 'abc', at: '', attempt: 1 }],
    timeline: [],
  };

  it('status shows every worker (story, iteration, phase, elapsed) and the queue; a dead fleet is `crashed`', () => {
    const status = describeFleetStatus(state, undefined, Date.parse('2026-11-30T00:01:30.000Z'));
    expect(status.state).toBe('crashed');
    expect(status.workers).toEqual([
      { slot: 2, story: 'B', attempt: 1, iteration: 3, phase: 'verifying', elapsedMs: 90_000, pid: 42 },
    ]);
    const text = renderFleetStatus(status);
    expect(text).toContain('worker 2: B attempt 1, iteration 3, verifying, 1m30s (PID 42)');
    expect(text).toContain('merged A; merging none; queued C');
    expect(text).toContain('3 iterations + 1 verifier runs of 20');
    expect(text).toContain('`star-loop resume` continues it');
    expect(describeFleetStatus(state, 7).state).toBe('running');
  });

  it('a paused fleet on the same PRD and branch is continued; a finished one, or another branch, starts anew', () => {
    expect(decideFleetStart({ previous: { ...state, status: 'paused' }, prd: 'prd.json', branch: 'work' }).kind).toBe(
      'continue',
    );
    expect(decideFleetStart({ previous: { ...state, status: 'finished' }, prd: 'prd.json', branch: 'work' }).kind).toBe(
      'new',
    );
    expect(decideFleetStart({ previous: { ...state, status: 'paused' }, prd: 'prd.json', branch: 'other' }).kind).toBe(
      'new',
    );
  });

  it('one line per fleet event; of a worker’s own events only the telling ones', () => {
    expect(renderFleetLine({ type: 'story.merged', story: 'A', attempt: 1, commit: 'abcdef0123456', order: 2 })).toBe(
      '✔ A merged as #2 (abcdef0123)',
    );
    const worker = { type: 'worker.event' as const, slot: 1, story: 'A', attempt: 1 };
    expect(
      renderFleetLine({
        ...worker,
        event: {
          type: 'gate.finished',
          iteration: 1,
          result: { name: 't', command: 'x', status: 'pass', durationMs: 1 },
          time: '',
        },
      }),
    ).toBeUndefined();
    expect(renderFleetLine({ ...worker, event: { type: 'warning', message: 'careful', time: '' } })).toBe(
      '[w1 A] warning: careful',
    );
  });
});
