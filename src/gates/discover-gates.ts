import { accessSync, constants } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import type { GateSpec } from '../config/config-schema.js';
import { runCapture } from '../proc/run-capture.js';
import { gateDiscoverers } from './discoverers/index.js';
import {
  type Candidate,
  type DroppedGate,
  type Gate,
  type GateDiscoverer,
  gateOrder,
  kindOf,
  type RepoFiles,
} from './gate.js';
import { checkingForm, type HygieneFacts } from './gate-hygiene.js';
import { cannotRun, pythonModulesOf, type ToolFacts } from './gate-tools.js';
import { normalizeCommand } from './looks-like-gate.js';
import { makeTargets } from './make-targets.js';
import { mergeSuites, type SuiteFacts } from './merge-suites.js';

export function repoFiles(root: string): RepoFiles {
  return {
    async read(path) {
      try {
        return await readFile(join(root, path), 'utf8');
      } catch {
        return undefined;
      }
    },
    async list(dir) {
      try {
        return await readdir(join(root, dir));
      } catch {
        return [];
      }
    },
  };
}

/** What recon found: the gates, and every command it found and left out, with the reason. */
export interface Discovered {
  gates: Gate[];
  dropped: DroppedGate[];
}

export type GateFacts = HygieneFacts & ToolFacts & SuiteFacts;

/**
 * `pytest …` as `python -m pytest …`, which puts the project's root on sys.path: the suite runs from the source
 * tree, as the gates run it, without the project installed (`pytest` alone imports an installed copy, or none).
 */
const pytestAsModule = (command: string) => command.replace(/^(?:pytest|py\.test)(?=\s|$)/, 'python -m pytest');

/**
 * Candidates → gates (pure): each in the form that only checks, or left out (it writes files with no
 * checking form, needs the network, or its program is not on PATH); one gate per command and per suite;
 * cheap kinds first.
 */
export function settleGates(found: readonly Candidate[], facts: GateFacts): Discovered {
  const dropped: DroppedGate[] = [];
  const seen = new Set<string>();
  const runnable: Gate[] = [];
  for (const { drop, ...gate } of found) {
    const leave = (reason: string) => dropped.push({ ...gate, reason });
    if (drop) {
      leave(drop);
      continue;
    }
    const checking = checkingForm(gate.command, facts);
    if ('drop' in checking) {
      leave(checking.drop);
      continue;
    }
    let command = pytestAsModule(checking.command);
    // Debian and many containers have python3 but no `python`.
    if (/^python\s/.test(command) && !facts.hasTool('python') && facts.hasTool('python3'))
      command = command.replace(/^python\s/, 'python3 ');
    const key = normalizeCommand(command);
    if (seen.has(key)) continue;
    seen.add(key);
    const why = cannotRun(command, facts);
    if (why) {
      leave(`${why}: gate skipped`);
      continue;
    }
    runnable.push(
      command === gate.command ? gate : { ...gate, command, name: gate.name === gate.command ? command : gate.name },
    );
  }
  const merged = mergeSuites(runnable, facts);
  return { gates: merged.gates.sort(gateOrder), dropped: [...dropped, ...merged.dropped] };
}

/** A program's presence on PATH, as the shell would find it. */
export function onPath(env: NodeJS.ProcessEnv): (name: string) => boolean {
  const dirs = (env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d));
  const cache = new Map<string, boolean>();
  return (name) => {
    const known = cache.get(name);
    if (known !== undefined) return known;
    const found = dirs.some((d) => {
      try {
        accessSync(join(d, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    cache.set(name, found);
    return found;
  };
}

/** Where recon looks: the repository, and the environment its gates will have. */
interface Where {
  root: string;
  env: NodeJS.ProcessEnv;
}

/** Which of these modules the Python on PATH can import: one process for all of them. */
async function importable(modules: readonly string[], hasTool: (n: string) => boolean, where: Where) {
  const python = hasTool('python3') ? 'python3' : hasTool('python') ? 'python' : undefined;
  if (modules.length === 0 || !python) return new Set<string>();
  const script = 'import importlib.util,sys\nfor m in sys.argv[1:]:\n  print(m if importlib.util.find_spec(m) else "")';
  const run = { cwd: where.root, env: where.env, timeoutMs: 20_000 };
  const out = await runCapture(python, ['-c', script, ...modules], run).catch(() => undefined);
  return new Set((out?.stdout ?? '').split('\n').filter(Boolean));
}

/** The project's scripts, make targets, fixing linter configs and installed executables. */
async function readFacts(files: RepoFiles, where: Where, modules: string[]): Promise<GateFacts> {
  let scripts: Record<string, string> = {};
  try {
    const pkg = JSON.parse((await files.read('package.json')) ?? '{}') as { scripts?: Record<string, unknown> };
    scripts = Object.fromEntries(Object.entries(pkg.scripts ?? {}).filter(([, v]) => typeof v === 'string')) as Record<
      string,
      string
    >;
  } catch {
    scripts = {};
  }
  const makefile =
    (await files.read('GNUmakefile')) ?? (await files.read('Makefile')) ?? (await files.read('makefile')) ?? '';
  const fixingConfig = new Set<string>();
  const pyproject = (await files.read('pyproject.toml')) ?? '';
  const ruffSection = /^\[tool\.ruff\]\s*$([\s\S]*?)(?=^\[(?!tool\.ruff\])|(?![\s\S]))/m.exec(pyproject)?.[1] ?? '';
  const ruffToml = (await files.read('ruff.toml')) ?? (await files.read('.ruff.toml')) ?? '';
  const topOfRuffToml = ruffToml.split(/^\[/m)[0] ?? '';
  if (/^fix\s*=\s*true\b/m.test(ruffSection) || /^fix\s*=\s*true\b/m.test(topOfRuffToml)) fixingConfig.add('ruff');
  const hasTool = onPath(where.env);
  return {
    scripts,
    makeTargets: makeTargets(makefile),
    fixingConfig,
    localBins: new Set(await files.list('node_modules/.bin')),
    hasTool,
    pythonModules: await importable(modules, hasTool, where),
  };
}

/**
 * The project's real quality gates, read from its own files, with what was found and left out; `gates` in
 * star.config.json replaces discovery entirely (the user knows best: run as written).
 */
export async function discoverGates(
  root: string,
  configured?: GateSpec[],
  options: { discoverers?: readonly GateDiscoverer[]; env?: NodeJS.ProcessEnv; facts?: Partial<GateFacts> } = {},
): Promise<Discovered> {
  if (configured) {
    const gates = configured.map((g) => ({
      name: g.name,
      command: g.command,
      kind: kindOf(`${g.name} ${g.command}`),
      source: 'star.config.json',
    }));
    return { gates, dropped: [] };
  }
  const files = repoFiles(root);
  const found = await Promise.all((options.discoverers ?? gateDiscoverers).map((d) => d.discover(files)));
  const modules = [...new Set(found.flat().flatMap((c) => pythonModulesOf(pytestAsModule(c.command))))];
  const facts = { ...(await readFacts(files, { root, env: options.env ?? process.env }, modules)), ...options.facts };
  return settleGates(found.flat(), facts);
}
