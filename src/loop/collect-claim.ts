import type { Finding } from '../state/finding-schema.js';
import type { ClaimFileResult } from '../state/read-claim-file.js';
import type { ClaimRecord } from '../state/state-schema.js';

/** `<promise>COMPLETE</promise>` counts only standing alone on a line of the final message. */
export function hasPromise(finalMessage: string): boolean {
  return /^[ \t]*<promise>COMPLETE<\/promise>[ \t]*$/m.test(finalMessage);
}

export interface ClaimInput {
  mode: 'prd' | 'task';
  claimFile: ClaimFileResult;
  finalMessage: string;
  /** PRD mode: the story this iteration worked on. */
  selectedStory?: string;
  /** PRD mode: stories whose `passes` the agent flipped to true. */
  flippedStories: readonly string[];
  /** PRD mode: every story id, and those already passing. */
  storyIds: ReadonlySet<string>;
  passed: ReadonlySet<string>;
}

/** One claim (or none), what was noted while reading it, and the claim file's summary. */
export interface CollectedClaim {
  claim?: ClaimRecord;
  notes: string[];
  summary?: string;
  /**
   * PRD mode: stories claimed besides the one this iteration was given (one story per iteration): left out of
   * the claim, their `passes` set back, and a finding against the iteration's own claim.
   */
  outOfScope: Finding[];
}

/**
 * Every way an agent can claim completion, gathered into one claim (or none). A claim is only ever a
 * request for verification: nothing here decides that work passed.
 */
export function collectClaim(input: ClaimInput): CollectedClaim {
  const notes: string[] = [];
  const sources = new Set<ClaimRecord['sources'][number]>();
  const stories = new Set<string>();
  let task = false;
  let summary: string | undefined;

  const file = input.claimFile;
  if (file.kind === 'invalid') notes.push(`.star/claim.json ignored: ${file.reason}`);
  if (file.kind === 'valid') {
    summary = file.claim.summary?.trim() || undefined;
    if (file.claim.complete) {
      sources.add('claim-file');
      if (input.mode === 'task') task = true;
      else {
        const story = file.claim.story ?? input.selectedStory;
        if (story) stories.add(story);
      }
    }
  }
  if (hasPromise(input.finalMessage)) {
    sources.add('promise');
    if (input.mode === 'task') task = true;
    else if (input.selectedStory) stories.add(input.selectedStory);
  }
  for (const id of input.flippedStories) {
    sources.add('passes-flip');
    stories.add(id);
  }
  for (const id of [...stories]) {
    if (!input.storyIds.has(id)) {
      notes.push(`claim for unknown story "${id}" ignored`);
      stories.delete(id);
    } else if (input.passed.has(id)) {
      notes.push(`claim for ${id} ignored: it already passes`);
      stories.delete(id);
    }
  }
  const others =
    input.mode === 'prd' && input.selectedStory ? [...stories].filter((s) => s !== input.selectedStory) : [];
  const outOfScope: Finding[] = [];
  if (others.length > 0) {
    for (const id of others) stories.delete(id);
    const detail =
      `this iteration was given ${input.selectedStory}, and it also claimed ${others.join(', ')}: one story per ` +
      `iteration: ${others.length === 1 ? 'that story is' : 'those stories are'} not accepted on this work ` +
      '(a passes flip of theirs is set back)';
    notes.push(detail);
    if (stories.size > 0) outOfScope.push({ rule: 'other-story', detail });
  }
  if (sources.size === 0 || (input.mode === 'prd' && stories.size === 0) || (input.mode === 'task' && !task)) {
    return { notes, summary, outOfScope: [] };
  }
  return { claim: { sources: [...sources], stories: [...stories], task, summary }, notes, summary, outOfScope };
}
