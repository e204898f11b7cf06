import { describe, expect, it } from 'vitest';
import { type ClaimInput, collectClaim, hasPromise } from '../../src/loop/collect-claim.js';

const base: ClaimInput = {
  mode: 'prd',
  claimFile: { kind: 'absent' },
  finalMessage: '',
  selectedStory: 'US-002',
  flippedStories: [],
  storyIds: new Set(['US-001', 'US-002', 'US-003']),
  passed: new Set(['US-001']),
};
const file = (claim: object) => ({
  kind: 'valid' as const,
  claim: claim as { complete: boolean },
  text: JSON.stringify(claim),
});

describe('hasPromise', () => {
  it.each([
    ['<promise>COMPLETE</promise>', true],
    ['Done.\n  <promise>COMPLETE</promise>  \n', true],
    ['I will print <promise>COMPLETE</promise> when done', false],
    ['`<promise>COMPLETE</promise>`', false],
    ['<promise>complete</promise>', false],
    ['', false],
  ])('%j → %s', (text, expected) => {
    expect(hasPromise(text)).toBe(expected);
  });
});

describe('collectClaim', () => {
  it.each<[string, Partial<ClaimInput>, { stories?: string[]; task?: boolean; sources?: string[] } | undefined]>([
    ['nothing → no claim', {}, undefined],
    [
      'claim file, complete → the story it names',
      { claimFile: file({ complete: true, story: 'US-002' }) },
      { stories: ['US-002'], sources: ['claim-file'] },
    ],
    [
      'claim file naming another story than the iteration’s → no claim (one story per iteration)',
      { claimFile: file({ complete: true, story: 'US-003' }) },
      undefined,
    ],
    ['claim file without story → the selected story', { claimFile: file({ complete: true }) }, { stories: ['US-002'] }],
    ['claim file, complete false → no claim', { claimFile: file({ complete: false, summary: 'half' }) }, undefined],
    [
      'malformed claim file → no claim',
      { claimFile: { kind: 'invalid', reason: 'not valid JSON', text: '{' } },
      undefined,
    ],
    [
      'promise alone on a line → the selected story',
      { finalMessage: 'ok\n<promise>COMPLETE</promise>' },
      { stories: ['US-002'], sources: ['promise'] },
    ],
    ['promise inside prose → no claim', { finalMessage: 'say <promise>COMPLETE</promise> later' }, undefined],
    ['a passes flip → that story', { flippedStories: ['US-002'] }, { stories: ['US-002'], sources: ['passes-flip'] }],
    ['a passes flip of another story → no claim', { flippedStories: ['US-003'] }, undefined],
    ['an already passing story → no claim', { claimFile: file({ complete: true, story: 'US-001' }) }, undefined],
    ['an unknown story → no claim', { claimFile: file({ complete: true, story: 'US-999' }) }, undefined],
    [
      'task mode: claim file → the task',
      { mode: 'task', selectedStory: undefined, claimFile: file({ complete: true }) },
      { task: true, stories: [] },
    ],
    [
      'task mode: promise → the task',
      { mode: 'task', selectedStory: undefined, finalMessage: '<promise>COMPLETE</promise>' },
      { task: true },
    ],
  ])('%s', (_name, input, expected) => {
    const { claim } = collectClaim({ ...base, ...input });
    if (expected === undefined) expect(claim).toBeUndefined();
    else expect(claim).toMatchObject(expected);
  });

  it('explains why a claim was ignored, and keeps the summary of an honest "not complete"', () => {
    expect(
      collectClaim({ ...base, claimFile: { kind: 'invalid', reason: 'complete: expected boolean', text: '{}' } }).notes,
    ).toEqual(['.star/claim.json ignored: complete: expected boolean']);
    expect(collectClaim({ ...base, claimFile: file({ complete: true, story: 'US-001' }) }).notes).toEqual([
      'claim for US-001 ignored: it already passes',
    ]);
    expect(collectClaim({ ...base, claimFile: file({ complete: false, summary: 'half way' }) }).summary).toBe(
      'half way',
    );
  });

  it('one story per iteration: every other story claimed or flipped is left out, with a finding against the claim', () => {
    const all = collectClaim({ ...base, claimFile: file({ complete: true }), flippedStories: ['US-002', 'US-003'] });
    expect(all.claim?.stories).toEqual(['US-002']);
    expect(all.outOfScope).toEqual([
      {
        rule: 'other-story',
        detail:
          'this iteration was given US-002, and it also claimed US-003: one story per iteration: that story is not ' +
          'accepted on this work (a passes flip of theirs is set back)',
      },
    ]);
    const other = collectClaim({ ...base, claimFile: file({ complete: true, story: 'US-003' }) });
    expect(other.claim).toBeUndefined();
    expect(other.outOfScope).toEqual([]);
    expect(other.notes.join('\n')).toContain('this iteration was given US-002, and it also claimed US-003');
  });
});
