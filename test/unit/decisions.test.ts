import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { decideNextStep, decideStall, decideStopStatus, type NextStepInput } from '../../src/loop/decide-next-step.js';
import { measureMovement, sameSummary } from '../../src/loop/measure-movement.js';
import { exitCodeFor } from '../../src/state/stop-reasons.js';

describe('measureMovement', () => {
  const still = {
    startHead: 'a',
    endHead: 'a',
    startTree: 't',
    endTree: 't',
    filesChanged: 0,
    acceptedStories: [],
    taskAccepted: false,
    planChanged: false,
  };
  it.each([
    ['nothing happened', {}, false, []],
    [
      'a commit with new content',
      { endHead: 'b', endTree: 'u', filesChanged: 2 },
      true,
      ['HEAD moved', '2 file(s) changed'],
    ],
    ['an empty commit, or a flip that star-loop set back, is not movement', { endHead: 'b' }, false, []],
    ['an accepted story', { acceptedStories: ['US-1'] }, true, ['US-1 accepted']],
    ['an accepted task', { taskAccepted: true }, true, ['task accepted']],
    ['the plan changed', { planChanged: true }, true, ['plan updated']],
  ])('%s', (_name, change, moved, reasons) => {
    expect(measureMovement({ ...still, ...change })).toEqual({ moved, reasons });
  });

  it('compares summaries loosely', () => {
    expect(sameSummary('Fixed 3 tests', 'fixed 12  tests')).toBe(true);
    expect(sameSummary('Fixed tests', 'Broke tests')).toBe(false);
    expect(sameSummary(undefined, 'x')).toBe(false);
  });
});

describe('decideNextStep', () => {
  const going: NextStepInput = {
    aborted: false,
    remaining: 2,
    iterationsThisRun: 3,
    verifierRuns: 0,
    reserve: 0,
    maxIterations: 20,
    activeMs: 1000,
    maxTimeMs: 60_000,
  };
  it.each<[string, Partial<NextStepInput>, string]>([
    ['work left and budget left → iterate', {}, 'iterate'],
    [
      'no work left → complete, even on the last iteration',
      { remaining: 0, iterationsThisRun: 20, aborted: true },
      'complete',
    ],
    ['aborted → stopped', { aborted: true }, 'stopped'],
    ['stalled → stalled', { stalled: '3 in a row' }, 'stalled'],
    ['iterations used up → max-iterations', { iterationsThisRun: 20 }, 'max-iterations'],
    ['verifier runs count against the budget', { iterationsThisRun: 15, verifierRuns: 5 }, 'max-iterations'],
    ['one run is kept in reserve to verify a claim', { iterationsThisRun: 19, reserve: 1 }, 'max-iterations'],
    ['…and with two left, the iteration may start', { iterationsThisRun: 18, reserve: 1 }, 'iterate'],
    ['time used up → max-time', { activeMs: 60_000 }, 'max-time'],
    ['no time limit → iterate', { maxTimeMs: undefined, activeMs: 9e9 }, 'iterate'],
    [
      'a fleet refused the iteration → its reason',
      { denied: { reason: 'max-cost', detail: 'the fleet: spent' } },
      'max-cost',
    ],
    [
      'all done, but an accepted story regressed → regressed',
      { remaining: 0, regressed: 'US-001 no longer holds' },
      'regressed',
    ],
    ['iterations used up with stories parked → parked', { iterationsThisRun: 20, parkedStories: ['US-002'] }, 'parked'],
    ['time used up with stories parked → parked', { activeMs: 60_000, parkedStories: ['US-002'] }, 'parked'],
    [
      'a fleet out of iterations with stories parked → parked',
      { denied: { reason: 'max-iterations', detail: 'x' }, parkedStories: ['A'] },
      'parked',
    ],
    ['stopped with stories parked → stopped', { aborted: true, parkedStories: ['US-002'] }, 'stopped'],
  ])('%s', (_name, change, expected) => {
    const step = decideNextStep({ ...going, ...change });
    expect(step.kind === 'iterate' ? 'iterate' : step.reason).toBe(expected);
  });
});

describe('decideStopStatus', () => {
  it.each<[Parameters<typeof decideStopStatus>[0], boolean, boolean, string]>([
    ['complete', false, true, 'finished'],
    ['max-iterations', false, true, 'finished'],
    ['safety', false, true, 'finished'],
    ['stopped', false, true, 'paused'],
    ['repeated-claim', false, true, 'paused'],
    ['error', false, true, 'paused'],
    ['stalled', true, true, 'paused'],
    ['stalled', true, false, 'finished'],
    ['asked-question', true, false, 'finished'],
  ])('%s (from a stall: %s, --on-stall pause: %s) → %s', (reason, fromStall, pause, expected) => {
    expect(decideStopStatus(reason, { fromStall, pause })).toBe(expected);
  });
});

describe('decideStall and exit codes', () => {
  it('acts only once the streak reaches --stall-after', () => {
    expect(decideStall(2, 3, 'pause').kind).toBe('none');
    expect(decideStall(3, 3, 'pause').kind).toBe('pause');
    expect(decideStall(4, 3, 'stop').kind).toBe('stop');
    expect(decideStall(3, 3, 'continue').kind).toBe('continue');
  });

  it.each([
    ['complete', ExitCode.Complete],
    ['max-iterations', ExitCode.Budget],
    ['max-time', ExitCode.Budget],
    ['stalled', ExitCode.NeedsHuman],
    ['regressed', ExitCode.NeedsHuman],
    ['refused', ExitCode.NeedsHuman],
    ['safety', ExitCode.Safety],
    ['stopped', ExitCode.Stopped],
    ['error', ExitCode.Internal],
  ] as const)('%s → exit %i', (reason, code) => {
    expect(exitCodeFor(reason)).toBe(code);
  });
});

describe('errorSignature', () => {
  it('treats errors that differ only in numbers, paths, ids and times as the same', async () => {
    const { errorSignature } = await import('../../src/loop/breakers.js');
    expect(errorSignature('fatal: cannot reach /tmp/sock-123 at 2026-11-30T01:02:03Z (pid 77)')).toBe(
      errorSignature('fatal: cannot reach /var/run/sock-9 at 2026-12-01T09:00:00Z (pid 4)'),
    );
    expect(errorSignature('exit code 1')).not.toBe(errorSignature('timed out'));
    expect(errorSignature('commit 1a2b3c4d5e failed')).toBe(errorSignature('commit 9f8e7d6c5b failed'));
  });
});

describe('detectOscillation', () => {
  it('spots A, B, A, B and nothing else', async () => {
    const { detectOscillation } = await import('../../src/loop/breakers.js');
    const records = (trees: string[]) =>
      trees.map((endTree) => ({ endTree }) as Parameters<typeof detectOscillation>[0][number]);
    expect(detectOscillation(records(['a', 'b', 'a', 'b']))).toContain('alternated between two states');
    expect(detectOscillation(records(['x', 'a', 'b', 'a', 'b']))).toBeDefined();
    expect(detectOscillation(records(['a', 'b', 'c', 'b']))).toBeUndefined();
    expect(detectOscillation(records(['a', 'a', 'a', 'a']))).toBeUndefined();
    expect(detectOscillation(records(['a', 'b', 'a']))).toBeUndefined();
  });
});
