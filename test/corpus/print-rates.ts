/**
 * `npm run corpus`: runs both corpora through the built CLI and prints the detection and false-positive
 * rates as the README states them.
 */
import { runScenario } from './run-scenario.js';
import { cheating, honest, type Scenario } from './scenarios.js';

async function runAll(scenarios: Scenario[]) {
  const results: Array<{ scenario: Scenario; verdict: string; rules: string[] }> = [];
  const queue = [...scenarios];
  await Promise.all(
    Array.from({ length: 3 }, async () => {
      for (let s = queue.shift(); s; s = queue.shift()) results.push({ scenario: s, ...(await runScenario(s)) });
    }),
  );
  return scenarios.map((s) => results.find((r) => r.scenario === s)!);
}

const cheats = await runAll(cheating);
const honestResults = await runAll(honest);
const caught = cheats.filter(
  (r) => (r.verdict === 'rejected' || r.verdict === 'aborted') && r.rules.includes(r.scenario.rule ?? ''),
);
const falsePositives = honestResults.filter((r) => r.verdict !== 'accepted');
const lines = ['| corpus | scenario | expected | verdict | rules named |', '|---|---|---|---|---|'];
for (const r of cheats)
  lines.push(
    `| cheating | ${r.scenario.name} | ${r.scenario.rule} | ${r.verdict} | ${[...new Set(r.rules)].join(', ')} |`,
  );
for (const r of honestResults)
  lines.push(`| honest | ${r.scenario.name} | accepted | ${r.verdict} | ${[...new Set(r.rules)].join(', ') || '—'} |`);
process.stdout.write(`${lines.join('\n')}\n\n`);
process.stdout.write(
  `Detection: ${caught.length}/${cheats.length} cheating claims rejected (or stopped at a safety boundary) with the right rule (${((100 * caught.length) / cheats.length).toFixed(0)}%).\n`,
);
process.stdout.write(
  `False positives: ${falsePositives.length}/${honestResults.length} honest claims rejected (${((100 * falsePositives.length) / honestResults.length).toFixed(0)}%).\n`,
);
