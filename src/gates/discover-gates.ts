import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GateSpec } from '../config/config-schema.js';
import { isOnPath } from '../proc/find-executable.js';
import { runCapture } from '../proc/run-capture.js';
import { gateDiscoverers } from './discoverers/index.js';
import { type GateDiscoverer, kindOf, type RepoFiles } from './gate.js';
import { pythonModulesOf } from './gate-tools.js';
import { makeTargets } from './make-targets.js';
import { type Discovered, type GateFacts, pytestAsModule, settleGates } from './settle-gates.js';

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

/** Whether a program is on PATH, each asked once. */
function cachedOnPath(env: NodeJS.ProcessEnv): (name: string) => boolean {
  const known = new Map<string, boolean>();
  return (name) => {
    if (!known.has(name)) known.set(name, isOnPath(name, env.PATH ?? ''));
    return known.get(name) ?? false;
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
  const golangci = (await files.read('.golangci.yml')) ?? (await files.read('.golangci.yaml')) ?? '';
  if (/^\s+fix:\s*true\b/m.test(golangci)) fixingConfig.add('golangci-lint');
  const hasTool = cachedOnPath(where.env);
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
      // By its name first (`lint`, `unit-tests`), else by its command.
      kind: kindOf(g.name) !== 'other' ? kindOf(g.name) : kindOf(g.command),
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
