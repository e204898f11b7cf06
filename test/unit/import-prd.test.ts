import { describe, expect, it } from 'vitest';
import { jsonSchemaFor } from '../../src/commands/schema.js';
import { importPrd } from '../../src/prd/import-prd.js';
import { checkPrd } from '../../src/prd/load-prd.js';

describe('importPrd', () => {
  it('stories with status and qualityGates (iannuttall/ralph): done → passes, gates named from their commands', () => {
    const source = {
      project: 'shop',
      overview: 'A shop',
      qualityGates: ['npm run typecheck', 'npm test', 'npm test -- --runInBand'],
      stories: [
        { id: 'S1', title: 'Cart', status: 'done', acceptanceCriteria: ['adds items'] },
        { id: 'S2', title: 'Checkout', status: 'in_progress', dependsOn: ['S1'], description: 'Pay' },
      ],
    };
    const out = importPrd(JSON.stringify(source));
    expect(out.prd).toMatchObject({
      project: 'shop',
      description: 'A shop',
      userStories: [
        { id: 'S1', title: 'Cart', passes: true, priority: 1, acceptanceCriteria: ['adds items'] },
        { id: 'S2', title: 'Checkout', passes: false, priority: 2, dependsOn: ['S1'], description: 'Pay' },
      ],
    });
    expect(out.gates).toEqual([
      { name: 'typecheck', command: 'npm run typecheck' },
      { name: 'test', command: 'npm test' },
      { name: 'test-2', command: 'npm test -- --runInBand' },
    ]);
    expect(checkPrd(JSON.stringify(out.prd)).problems).toEqual([]);
  });

  it('features.json and tasks with subtasks; a markdown checklist with criteria indented under items', () => {
    const features = importPrd(
      JSON.stringify({ features: [{ description: 'Login works', steps: ['open /login', 'sign in'], passes: false }] }),
    );
    expect(features.prd.userStories[0]).toMatchObject({
      id: 'US-001',
      title: 'Login works',
      acceptanceCriteria: ['open /login', 'sign in'],
    });
    const tasks = importPrd(
      JSON.stringify({ tasks: [{ title: 'API', subtasks: ['GET /items', { title: 'POST /items' }] }] }),
    );
    expect(tasks.prd.userStories[0]?.acceptanceCriteria).toEqual(['GET /items', 'POST /items']);
    expect(tasks.notes).toContain('US-001: 2 subtask(s) became acceptance criteria');
    const md = importPrd(
      '# Plan\n\n- [x] Set up the repo\n- [ ] Add login\n  - [ ] a test for a bad password\n  - the session cookie is httpOnly\n* [ ] Add logout\n',
    );
    expect(md.prd).toMatchObject({
      project: 'Plan',
      userStories: [
        { id: 'US-001', title: 'Set up the repo', passes: true },
        {
          id: 'US-002',
          title: 'Add login',
          passes: false,
          acceptanceCriteria: ['a test for a bad password', 'the session cookie is httpOnly'],
        },
        { id: 'US-003', title: 'Add logout', passes: false },
      ],
    });
    expect(() => importPrd('just prose, no checklist')).toThrow('no checklist items');
  });
});

describe('checkPrd: machine-written mistakes, every problem with its path', () => {
  it('names top-level tasks/prd and story status/subtasks with a fix, all at once', () => {
    expect(checkPrd(JSON.stringify({ tasks: [] })).problems.map((p) => p.path)).toEqual(['tasks', 'userStories']);
    expect(checkPrd(JSON.stringify({ prd: {} })).problems[0]?.message).toContain('rename the key to "userStories"');
    const { problems } = checkPrd(
      JSON.stringify({
        userStories: [
          { id: 'A', title: 'a', status: 'done' },
          { id: 'B', title: 'b', passes: false, subtasks: ['x'] },
        ],
      }),
    );
    expect(problems.map((p) => p.path)).toEqual(['userStories[0].status', 'userStories[1].subtasks']);
    expect(problems[0]?.message).toContain('"passes" (true or false), not "status"');
  });
});

describe('published JSON Schemas', () => {
  it('are generated from the zod schemas star-loop validates with', () => {
    const prd = jsonSchemaFor('prd') as { required: string[]; properties: Record<string, unknown> };
    expect(prd.required).toEqual(['userStories']);
    const config = jsonSchemaFor('config') as { additionalProperties: boolean; properties: Record<string, unknown> };
    expect(config.additionalProperties).toBe(false);
    expect(Object.keys(config.properties)).toContain('maxCost');
    const events = jsonSchemaFor('events') as { oneOf: Array<{ properties: { type: { const: string } } }> };
    expect(events.oneOf.map((e) => e.properties.type.const)).toContain('iteration.finished');
  });
});
