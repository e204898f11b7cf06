import type { Prd, Story } from './prd-schema.js';

/**
 * The next story: lowest `priority` number among stories with `passes: false` whose `dependsOn` all pass;
 * ties (and stories without a priority, which sort last) keep file order.
 */
export function selectNextStory(
  prd: Prd,
  passed: ReadonlySet<string> = passedIds(prd),
  parked: ReadonlySet<string> = new Set(),
  only?: string,
): Story | undefined {
  return readyStories(prd, passed, parked).find((s) => only === undefined || s.id === only);
}

/** Every story that can start now, in the order the loop takes them: not passed, not parked, dependencies passed. */
export function readyStories(
  prd: Prd,
  passed: ReadonlySet<string> = passedIds(prd),
  parked: ReadonlySet<string> = new Set(),
): Story[] {
  return orderStories(prd).filter(
    (s) => !passed.has(s.id) && !parked.has(s.id) && (s.dependsOn ?? []).every((d) => passed.has(d)),
  );
}

/** Stories in the order the loop will take them: by priority, then file order. */
export function orderStories(prd: Prd): Story[] {
  return prd.userStories
    .map((story, index) => ({ story, index }))
    .sort(
      (a, b) =>
        (a.story.priority ?? Number.MAX_SAFE_INTEGER) - (b.story.priority ?? Number.MAX_SAFE_INTEGER) ||
        a.index - b.index,
    )
    .map(({ story }) => story);
}

export function passedIds(prd: Prd): Set<string> {
  return new Set(prd.userStories.filter((s) => s.passes).map((s) => s.id));
}

/** Stories that cannot start because something they depend on is not done. */
export function blockedStories(prd: Prd, passed: ReadonlySet<string> = passedIds(prd)): Story[] {
  return prd.userStories.filter((s) => !passed.has(s.id) && !(s.dependsOn ?? []).every((d) => passed.has(d)));
}
