import type { DroppedGate, Gate, GateKind } from './gate.js';
import { scriptName, simpleCommands } from './gate-hygiene.js';

/** A package's scripts and a Makefile's targets: what `npm test` or `make check` really runs. */
export interface SuiteFacts {
  scripts: Readonly<Record<string, string>>;
  /** Make target → its prerequisites and recipe lines. */
  makeTargets: Readonly<Record<string, { needs: string[]; recipe: string[] }>>;
}

/** Flags that change what a runner prints or measures, not which tests run. */
const NOISE = new RegExp(
  `^(-v+|--verbose|-q+|--quiet|--silent|--ci|--run|--coverage|--cov(=.*)?|--cov-report(=.*)?|` +
    `--colou?r(=.*)?|--no-colou?r|--)$`,
);

/**
 * One simple command as a suite key: `python3 -m pytest -v` and `pytest` are one suite; so are `pnpm vitest
 * --coverage`, `npx vitest run` and `vitest` (a package's own program, however it is launched; `vitest` runs
 * once under CI=true, as the gates run).
 */
function key(words: readonly string[], dir: string): string {
  const w = words
    .filter((x) => !NOISE.test(x))
    .join(' ')
    .replace(/^(?:npx|bunx|pnpm exec|pnpm|yarn exec|yarn|bun x|npm exec(?: --)?)\s+(?=\S)/, '');
  const runner = w.replace(/^(python3? -m pytest|py\.test)\b/, 'pytest').replace(/^vitest run\b/, 'vitest');
  return dir ? `[${dir}] ${runner}` : runner;
}

/** The leaf commands a gate runs, following package scripts and make targets (a few levels deep). */
function leaves(command: string, facts: SuiteFacts, depth = 0): Set<string> {
  const out = new Set<string>();
  let dir = '';
  for (const words of simpleCommands(command)) {
    if (words[0] === 'cd') {
      dir = words[1] ?? '';
      continue;
    }
    const script = scriptName(words);
    const body = script === undefined ? undefined : facts.scripts[script];
    const [make, target] = words;
    const rule = (make === 'make' || make === '$(MAKE)') && target ? facts.makeTargets[target] : undefined;
    if (depth < 4 && !dir && body !== undefined) {
      const extra = words.includes('--') ? words.slice(words.indexOf('--') + 1).join(' ') : '';
      for (const leaf of leaves(`${body}${extra ? ` ${extra}` : ''}`, facts, depth + 1)) out.add(leaf);
    } else if (depth < 4 && !dir && rule && words.length === 2) {
      for (const need of rule.needs) for (const leaf of leaves(`make ${need}`, facts, depth + 1)) out.add(leaf);
      for (const line of rule.recipe) for (const leaf of leaves(line, facts, depth + 1)) out.add(leaf);
    } else out.add(key(words, dir));
  }
  return out;
}

const KIND_RANK: GateKind[] = ['test', 'build', 'typecheck', 'lint', 'other'];
const subset = (a: Set<string>, b: Set<string>) => [...a].every((x) => b.has(x));

/**
 * One gate per suite: two gates that run the same commands (`cargo test` and `cargo test --verbose`; `npm test`
 * and a `test-ci` script that wraps it) run once, the first found; a gate whose commands all run inside
 * another's (`pnpm lint` inside `pnpm test`) is left to that one, which takes the stronger kind (a gate that
 * lints and tests is a test gate). Pure.
 */
export function mergeSuites(gates: readonly Gate[], facts: SuiteFacts): { gates: Gate[]; dropped: DroppedGate[] } {
  const sets = gates.map((g) => leaves(g.command, facts));
  const size = (j: number) => sets[j]?.size ?? 0;
  const kept = gates.map((g) => ({ ...g }));
  const hostOf = gates.map((_, i) => {
    const mine = sets[i] ?? new Set<string>();
    if (mine.size === 0) return -1;
    // The biggest gate holding every command of this one (the first of equals): never one dropped itself.
    const hosts = gates
      .map((_, j) => j)
      .filter((j) => j !== i && subset(mine, sets[j] ?? new Set()) && (size(j) > mine.size || j < i))
      .sort((a, b) => size(b) - size(a) || a - b);
    return hosts[0] ?? -1;
  });
  const dropped: DroppedGate[] = [];
  hostOf.forEach((host, i) => {
    const gate = gates[i];
    const into = kept[host];
    if (!gate || !into) return;
    if (KIND_RANK.indexOf(gate.kind) < KIND_RANK.indexOf(into.kind)) into.kind = gate.kind;
    dropped.push({
      name: gate.name,
      command: gate.command,
      source: gate.source,
      reason:
        size(host) === size(i)
          ? `the same suite as \`${into.command}\` (${into.source}), which runs it`
          : `it runs inside \`${into.command}\` (${into.source})`,
    });
  });
  return { gates: kept.filter((_, i) => hostOf[i] === -1), dropped };
}
