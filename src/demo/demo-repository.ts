const PACKAGE = { name: 'demo-calc', private: true, type: 'module', scripts: { test: 'node --test' } };

/** The files of the demo repository: a tiny calculator with a real test gate (`npm test` → `node --test`). */
export const demoFiles: Record<string, string> = {
  'package.json': `${JSON.stringify(PACKAGE, null, 2)}\n`,
  'src/calc.js': 'export function add(a, b) {\n  return a + b;\n}\n',
  'test/calc.test.js':
    "import { add } from '../src/calc.js';\nimport assert from 'node:assert/strict';\nimport { test } from " +
    "'node:test';\n\ntest('add', () => {\n  assert.equal(add(2, 3), 5);\n});\n",
  'prd.json': `${JSON.stringify(
    {
      project: 'demo-calc',
      branchName: 'star-loop/demo',
      description: 'A calculator that needs three more operations',
      userStories: [
        {
          id: 'US-001',
          title: 'Add subtract',
          description: 'As a user I can subtract two numbers.',
          acceptanceCriteria: ['subtract(5, 3) is 2', 'Tests pass'],
          priority: 1,
          passes: false,
          notes: '',
        },
        {
          id: 'US-002',
          title: 'Add multiply',
          description: 'As a user I can multiply two numbers.',
          acceptanceCriteria: ['multiply(-2, 3) is -6', 'Tests pass'],
          priority: 2,
          passes: false,
          notes: '',
        },
        {
          id: 'US-003',
          title: 'Add divide',
          description: 'As a user I can divide, and division by zero is an error.',
          acceptanceCriteria: ['divide(12, 4) is 3', 'divide(1, 0) throws "division by zero"', 'Tests pass'],
          priority: 3,
          passes: false,
          notes: '',
          dependsOn: ['US-002'],
        },
      ],
    },
    null,
    2,
  )}\n`,
  'README.md': '# demo-calc\n\nA sample repository created by `npm run demo` for star-loop.\n',
};
