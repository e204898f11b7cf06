import { DEFAULTS } from '../config/options.js';
import type { Gate } from '../gates/gate.js';

const EXAMPLE_PRD = {
  project: 'my-project',
  branchName: 'star-loop/first-run',
  description: 'An example: replace these stories with your own (star-loop validate prd.json checks them).',
  userStories: [
    {
      id: 'US-001',
      title: 'A small, verifiable first story',
      description: 'As a user I want … so that ….',
      acceptanceCriteria: ['A test covers the new behaviour', 'The quality gates pass'],
      priority: 1,
      passes: false,
      notes: '',
    },
    {
      id: 'US-002',
      title: 'A story that builds on the first',
      description: 'As a user I want … so that ….',
      acceptanceCriteria: ['A test covers the new behaviour'],
      priority: 2,
      passes: false,
      notes: '',
      dependsOn: ['US-001'],
    },
  ],
};

/** star.config.json with the effective defaults spelled out, so they can be changed in place. */
const DEFAULT_CONFIG = {
  agent: DEFAULTS.agent,
  maxIterations: DEFAULTS.maxIterations,
  stallAfter: DEFAULTS.stallAfter,
  onStall: DEFAULTS.onStall,
  parkAfter: DEFAULTS.parkAfter,
  sameErrorLimit: DEFAULTS.sameErrorLimit,
  iterationTimeout: DEFAULTS.iterationTimeout,
  gateTimeout: DEFAULTS.gateTimeout,
  maxWait: DEFAULTS.maxWait,
  backoff: { initial: DEFAULTS.backoffInitial, max: DEFAULTS.backoffMax },
  verify: DEFAULTS.verify,
  prd: 'prd.json',
};

/** AGENTS.md for the agents star-loop runs: operational commands only, at most 60 lines. */
function agentsSkeleton(gates: readonly Gate[]): string {
  const gateLines =
    gates.length > 0
      ? gates.slice(0, 15).map((g) => `- ${g.name}: \`${g.command}\`${g.source ? `  (from ${g.source})` : ''}`)
      : ['- (none found: add your test and lint commands here, and as "gates" in star.config.json)'];
  return [
    '# AGENTS.md',
    '',
    'Operational notes for coding agents working in this repository. Keep it short (at most 60 lines):',
    'commands and the few rules an agent cannot guess. Progress notes do not belong here.',
    '',
    '## Quality gates (star-loop re-runs these on every claim; a claim with a red gate is rejected)',
    ...gateLines,
    '',
    '## Build and run',
    '- Install: (fill in, e.g. `npm install`)',
    '- Build: (fill in)',
    '- Run one test: (fill in)',
    '',
    '## Rules',
    '- Never weaken, skip or delete a test to make it pass; fix the code instead.',
    '- Commit your work with a clear message; do not push.',
    '- (add the project-specific rules an agent must know)',
    '',
  ].join('\n');
}

/** What `star-loop init` proposes: an example prd.json, AGENTS.md with the gates recon found, star.config.json. */
export function scaffoldFiles(gates: readonly Gate[]): Array<[name: string, text: string]> {
  return [
    ['prd.json', `${JSON.stringify(EXAMPLE_PRD, null, 2)}\n`],
    ['AGENTS.md', agentsSkeleton(gates)],
    ['star.config.json', `${JSON.stringify(DEFAULT_CONFIG, null, 2)}\n`],
  ];
}
