import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitdir } from './gitdir.js';

/** A tiny project with a real gate: `npm test` runs `node --test` over test/*.test.js. */
export const CALC_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'calc', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'src/add.js': 'export const add = (a, b) => a + b;\n',
  'test/add.test.js':
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { add } from '../src/add.js';\n\ntest('add', () => assert.equal(add(2, 3), 5));\n",
};

export const testFor = (name: string, call: string, expected: string) =>
  `import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { ${name} } from '../src/${name}.js';\n\ntest('${name}', () => assert.equal(${call}, ${expected}));\n`;

/**
 * prd.json written the way a person or another runner might: an unknown top-level key, custom key order,
 * 2-space indentation. star-loop must only ever change `passes`.
 */
export function prdText(
  stories: Array<{ id: string; title: string; priority?: number; dependsOn?: string[]; description?: string }>,
): string {
  return `${JSON.stringify(
    {
      project: 'calc',
      branchName: 'work',
      customKey: { keep: true },
      userStories: stories.map((s) => ({
        id: s.id,
        title: s.title,
        description: s.description ?? `As a user I want ${s.title.toLowerCase()}.`,
        acceptanceCriteria: ['Tests pass'],
        priority: s.priority ?? 1,
        passes: false,
        notes: '',
        ...(s.dependsOn ? { dependsOn: s.dependsOn } : {}),
        owner: 'someone',
      })),
    },
    null,
    2,
  )}\n`;
}

export async function calcRepo(extra: Record<string, string> = {}): Promise<{ repo: string; aux: string }> {
  const repo = await gitdir({ ...CALC_FILES, ...extra });
  // Scenarios and their logs live outside the repository, so the agent's `git add -A` never sees them.
  const aux = await mkdtemp(join(tmpdir(), 'star-loop-aux-'));
  return { repo, aux };
}
