import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { parsePrd } from '../../src/prd/load-prd.js';
import type { Prd } from '../../src/prd/prd-schema.js';
import { orderStories, selectNextStory } from '../../src/prd/select-next-story.js';
import { setStoryPasses } from '../../src/prd/set-story-passes.js';

const story = (id: string, extra: Partial<Prd['userStories'][number]> = {}) => ({
  id,
  title: id,
  passes: false,
  ...extra,
});
const prd = (...stories: Prd['userStories']): Prd => ({ userStories: stories });

describe('selectNextStory', () => {
  it.each([
    ['lowest priority number first', prd(story('A', { priority: 2 }), story('B', { priority: 1 })), 'B'],
    ['ties keep file order', prd(story('A', { priority: 1 }), story('B', { priority: 1 })), 'A'],
    ['passing stories are skipped', prd(story('A', { priority: 1, passes: true }), story('B', { priority: 2 })), 'B'],
    [
      'stories without priority come last, in file order',
      prd(story('A'), story('B', { priority: 9 }), story('C')),
      'B',
    ],
    [
      'a story waits for its dependencies',
      prd(story('A', { priority: 1, dependsOn: ['B'] }), story('B', { priority: 2 })),
      'B',
    ],
    [
      '…and goes once they pass',
      prd(story('A', { priority: 1, dependsOn: ['B'] }), story('B', { priority: 2, passes: true })),
      'A',
    ],
    ['nothing when all pass', prd(story('A', { passes: true })), undefined],
  ])('%s', (_name, input, expected) => {
    expect(selectNextStory(input)?.id).toBe(expected);
  });

  it('orders stories by priority then file order', () => {
    expect(
      orderStories(prd(story('A', { priority: 3 }), story('B'), story('C', { priority: 1 }))).map((s) => s.id),
    ).toEqual(['C', 'A', 'B']);
  });
});

describe('parsePrd', () => {
  const problems = (value: unknown) => {
    try {
      parsePrd('prd.json', JSON.stringify(value));
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as InputError).message;
    }
    throw new Error('expected an InputError');
  };

  it('accepts the snarktank shape, `name` instead of `project`, and keeps unknown keys', () => {
    const parsed = parsePrd(
      'prd.json',
      JSON.stringify({ name: 'x', extra: 1, userStories: [{ ...story('US-001'), labels: ['ui'] }] }),
    );
    expect(parsed.userStories[0]).toMatchObject({ id: 'US-001', labels: ['ui'] });
    expect((parsed as Record<string, unknown>).extra).toBe(1);
  });

  it.each([
    [
      { userStories: [{ id: 'US-001', title: 'A', passes: 'no' }] },
      'prd.json: userStories[0].passes: Invalid input: expected boolean, received string — use true or false without quotes',
    ],
    [{ userStories: [{ id: 7, title: 'A', passes: false }] }, 'prd.json: userStories[0].id:'],
    [{ userStories: [{ id: 'A', passes: false }] }, 'prd.json: userStories[0].title:'],
    [{ userStories: [story('A', { priority: 1.5 })] }, 'userStories[0].priority: must be a whole number (1 = first)'],
    [{ userStories: [story('A'), story('A')] }, 'userStories[1].id: duplicate id "A" (also userStories[0].id)'],
    [
      { userStories: [story('A', { dependsOn: ['A'] })] },
      'userStories[0].dependsOn[0]: a story cannot depend on itself',
    ],
    [
      { userStories: [story('A', { dependsOn: ['B'] }), story('B', { dependsOn: ['A'] })] },
      'dependency cycle A → B → A',
    ],
    [{ prd: { userStories: [] } }, 'prd.json: prd: found "prd" where star-loop expects "userStories"'],
    [[1, 2], 'prd.json: (top level): expected a JSON object'],
  ])('%j → %s', (value, message) => {
    expect(problems(value)).toContain(message);
  });

  it('names invalid JSON', () => {
    expect(() => parsePrd('prd.json', '{"userStories": [')).toThrow(/prd.json: not valid JSON/);
  });
});

describe('setStoryPasses', () => {
  it('changes only the one value, keeping key order, indentation, unknown keys and the trailing newline', () => {
    const text =
      '{\n    "userStories": [\n        {"id": "A", "passes": false, "zeta": 1},\n        {\n            "passes": false,\n            "id": "B"\n        }\n    ],\n    "project": "p"\n}\n';
    expect(setStoryPasses(text, 'B', true)).toBe(
      text.replace('"passes": false,\n            "id": "B"', '"passes": true,\n            "id": "B"'),
    );
    expect(setStoryPasses(text, 'A', true)).toBe(
      text.replace('{"id": "A", "passes": false', '{"id": "A", "passes": true'),
    );
  });

  it('works on tab-indented files and throws for an unknown story', () => {
    const text = '{\n\t"userStories": [\n\t\t{\n\t\t\t"id": "A",\n\t\t\t"passes": true\n\t\t}\n\t]\n}';
    expect(setStoryPasses(text, 'A', false)).toBe(text.replace('true', 'false'));
    expect(() => setStoryPasses(text, 'Z', true)).toThrow(/Z not found/);
  });
});
