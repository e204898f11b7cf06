import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calcRepo } from '../helpers/calc-repo.js';
import { git, writeFiles } from '../helpers/gitdir.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';
import { CORPUS_FILES } from './corpus-repo.js';
import type { Scenario } from './scenarios.js';

/**
 * One scenario alone takes 15-20 s (baseline, agent, gates, fail-to-pass, mutants); the corpus runs five at a
 * time beside other test files, and on CI's two loaded cores a few passed 60 s. The verdicts are what is
 * checked, never the time.
 */
export const SCENARIO_TIMEOUT_MS = 180_000;

export interface ScenarioResult {
  verdict: string;
  rules: string[];
  details: string[];
}

/**
 * Runs one scenario for real: a temp repository, the built CLI, the scripted agent doing the scenario's work
 * and claiming the story, a verifier that accepts everything (so only star-loop's own checks decide).
 */
export async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const story = scenario.story ?? { title: 'Add multiply', description: 'multiply(a, b) returns the product.' };
  const prd = {
    project: 'corpus',
    userStories: [
      { id: 'US-001', ...story, acceptanceCriteria: ['Tests pass'], priority: 1, passes: false, notes: '' },
    ],
  };
  const { repo, aux } = await calcRepo({
    ...CORPUS_FILES,
    ...scenario.files,
    'prd.json': `${JSON.stringify(prd, null, 2)}\n`,
  });
  if (scenario.hook) {
    await writeFile(join(repo, '.git/hooks/pre-commit'), scenario.hook, { mode: 0o755 });
    // The starting commit passes the hook; only the agent's work may fail it.
    await writeFiles(repo, {});
  }
  const agent = await scriptedAgent(aux, {
    steps: [{ ...scenario.work, claim: { complete: true, story: 'US-001', summary: scenario.name } }],
    repeat: {},
  });
  await runCli(repo, [
    'run',
    '--prd',
    'prd.json',
    '--agent',
    'command',
    '--agent-cmd',
    agent.cmd,
    '--max-iterations',
    '2',
    ...(scenario.sandbox ? ['--sandbox', scenario.sandbox] : []),
  ]);
  const state = await readJson<{
    records: Array<{
      verdict: string;
      findings: Array<{ rule: string; detail: string }>;
      safety: Array<{ rule: string; detail: string }>;
    }>;
  }>(join(repo, '.star/state.json'));
  const first = state.records[0];
  if (!first)
    throw new Error(`scenario "${scenario.name}": no iteration ran (${await git(repo, 'status', '--short')})`);
  // A safety boundary (a protected path, a secret, …) stops the run before verification: that counts as caught.
  const all = [...first.findings, ...first.safety];
  return {
    verdict: first.safety.length > 0 ? 'aborted' : first.verdict,
    rules: all.map((f) => f.rule),
    details: all.map((f) => `[${f.rule}] ${f.detail}`),
  };
}
