import { describe, expect, it } from 'vitest';
import { longestBackoff, pickAgent } from '../../src/agents/pick-agent.js';
import { detectOscillation, detectRepeatedClaim, trackHazard } from '../../src/loop/breakers.js';
import { askedQuestion, detectHazard } from '../../src/loop/detect-hazard.js';
import type { IterationRecord, RunState } from '../../src/state/state-schema.js';

const rec = (r: Partial<IterationRecord>) => ({ agent: { timedOut: false, isError: false }, ...r }) as IterationRecord;

describe('pickAgent and backoff', () => {
  it('the primary unless limited; then a free fallback; when both are limited, whichever frees first', () => {
    expect(pickAgent(100, {}, 'claude')).toBe('claude');
    expect(pickAgent(100, { claude: 200 }, 'claude')).toBe('claude');
    expect(pickAgent(100, { claude: 200 }, 'claude', 'codex')).toBe('codex');
    expect(pickAgent(300, { claude: 200 }, 'claude', 'codex')).toBe('claude');
    expect(pickAgent(100, { claude: 200, codex: 150 }, 'claude', 'codex')).toBe('codex');
    expect(pickAgent(100, { claude: 200, codex: 500 }, 'claude', 'codex')).toBe('claude');
    expect(longestBackoff(0, 1000, 60_000)).toBe(2000);
    expect(longestBackoff(3, 1000, 60_000)).toBe(16_000);
    expect(longestBackoff(10, 1000, 60_000)).toBe(60_000);
  });
});

describe('headless hazards', () => {
  const base = { failed: false, claimed: false, moved: false, exitCode: 0 };
  const o = (x: object) => ({ finalMessage: '', isError: false, ...x });
  it('names what the output shows, and never work that moved or claimed', () => {
    expect(detectHazard({ ...base, output: o({ permissionDenials: 2 }) })).toEqual({
      name: 'permission-denied',
      evidence: '2 tool call(s) refused',
    });
    expect(detectHazard({ ...base, output: o({ planMode: true }) })?.name).toBe('plan-mode');
    expect(detectHazard({ ...base, output: o({ finalMessage: 'Done?\nShall I continue? ' }) })).toEqual({
      name: 'asked-question',
      evidence: 'Shall I continue?',
    });
    expect(detectHazard({ ...base, output: o({ toolCalls: 0, finalMessage: 'I would do it.' }) })?.name).toBe(
      'no-tool-calls',
    );
    expect(detectHazard({ ...base, output: o({ finalMessage: 'ok' }) })?.name).toBe('idle-exit');
    expect(detectHazard({ ...base, moved: true, output: o({ permissionDenials: 2 }) })).toBeUndefined();
    expect(detectHazard({ ...base, claimed: true, output: o({ finalMessage: 'Is this ok?' }) })).toBeUndefined();
    // A failed run is an error, reported as one; a non-zero exit is not an idle exit.
    expect(detectHazard({ ...base, failed: true, output: o({ finalMessage: 'why?' }) })).toBeUndefined();
    expect(detectHazard({ ...base, exitCode: 2, output: o({}) })).toBeUndefined();
    expect(askedQuestion('What now?**')).toBe('What now?**');
    expect(askedQuestion('See https://x.test/?q=1 for details.')).toBeUndefined();
  });

  it('hard hazards trip at once, soft ones only after a whole stall streak of the same one', () => {
    const state = {} as RunState;
    const hit = (name: NonNullable<IterationRecord['agent']['hazard']>['name']) =>
      rec({ agent: { timedOut: false, isError: false, hazard: { name } } });
    expect(trackHazard(state, hit('asked-question'), 2)).toBeUndefined();
    expect(trackHazard(state, hit('asked-question'), 2)).toMatchObject({ hard: false });
    expect(trackHazard(state, hit('idle-exit'), 2)).toBeUndefined();
    expect(trackHazard(state, rec({}), 2)).toBeUndefined();
    expect(state.hazardStreak).toBeUndefined();
    expect(trackHazard(state, hit('permission-denied'), 5)).toMatchObject({ hard: true });
  });
});

describe('claim and plan breakers', () => {
  const claim = { sources: ['claim-file' as const], stories: ['US-1'], task: false, summary: 'done' };
  it('a rejected claim repeated word for word on an unchanged tree', () => {
    const first = rec({ n: 1, story: 'US-1', verdict: 'rejected', claim, endTree: 't1' });
    expect(
      detectRepeatedClaim([first, rec({ n: 2, story: 'US-1', verdict: 'rejected', claim, endTree: 't1' })]),
    ).toContain('word for word');
    expect(
      detectRepeatedClaim([first, rec({ n: 2, story: 'US-1', verdict: 'rejected', claim, endTree: 't2' })]),
    ).toBeUndefined();
    expect(
      detectRepeatedClaim([
        first,
        rec({ n: 2, story: 'US-1', verdict: 'rejected', claim: { ...claim, summary: 'fixed' }, endTree: 't1' }),
      ]),
    ).toBeUndefined();
    expect(
      detectRepeatedClaim([
        rec({ ...first, verdict: 'accepted' }),
        rec({ n: 2, story: 'US-1', verdict: 'rejected', claim, endTree: 't1' }),
      ]),
    ).toBeUndefined();
  });

  it('the plan going A, B, A, B is oscillation even when the trees all differ', () => {
    const records = ['a', 'b', 'a', 'b'].map((planHash, i) => rec({ planHash, endTree: `t${i}` }));
    expect(detectOscillation(records)).toContain('two versions of the plan');
    expect(
      detectOscillation(['a', 'b', 'c', 'b'].map((planHash, i) => rec({ planHash, endTree: `t${i}` }))),
    ).toBeUndefined();
  });
});
