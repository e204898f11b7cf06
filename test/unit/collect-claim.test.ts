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
      { claimFile: file({ complete: true, story: 'US-003' }) },
      { stories: ['US-003'], sources: ['claim-file'] },
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
    ['a passes flip → that story', { flippedStories: ['US-003'] }, { stories: ['US-003'], sources: ['passes-flip'] }],
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
});
