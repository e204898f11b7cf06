import { scriptName, simpleCommands } from './gate-hygiene.js';

/** What recon knows about the machine: which tools are on PATH, which the project installed itself. */
export interface ToolFacts {
  hasTool(name: string): boolean;
  /** The executables in the project's node_modules/.bin. */
  localBins: ReadonlySet<string>;
  /** The modules the candidates run with `python -m` that Python can import here (unknown: not checked). */
  pythonModules?: ReadonlySet<string>;
}

/** The modules a command runs with `python -m` (`python3 -m pytest` → pytest). Pure. */
export function pythonModulesOf(command: string): string[] {
  return simpleCommands(command)
    .filter((w) => /^python[\d.]*$/.test(w[0] ?? '') && w[1] === '-m' && w[2])
    .map((w) => (w[2] ?? '').split('.')[0] ?? '');
}

/** Cargo's own subcommands; any other (`cargo nextest`) is a separate `cargo-<name>` program. */
const CARGO_BUILTIN = new Set(
  (
    'build b check c clean doc d new init add remove run r test t bench update search publish install ' +
    'uninstall fmt clippy tree vendor metadata fix'
  ).split(' '),
);
const SHELL_BUILTIN = new Set('cd export true false test [ echo printf set exit : . source'.split(' '));

/** Commands that fetch what they run, so they need the network (which the gates do not have). */
function networkReason(all: readonly string[], facts: ToolFacts): string | undefined {
  // `python -m tox` is tox.
  const words = /^python[\d.]*$/.test(all[0] ?? '') && all[1] === '-m' ? all.slice(2) : all;
  const [first = '', second = '', third = ''] = words;
  if (first === 'build' && words !== all && !words.some((w) => w === '-n' || w === '--no-isolation'))
    return '`python -m build` installs its build backend from the network (build isolation)';
  if (first === 'uvx' || (first === 'uv' && second === 'tool' && third === 'run'))
    return '`uvx` fetches the tool it runs from the network';
  if (first === 'uv' && second === 'run' && !words.includes('--offline') && !words.includes('--no-sync'))
    return '`uv run` syncs the environment first, downloading packages and Python itself from the network';
  if (first === 'pipx' && second === 'run') return '`pipx run` fetches the tool it runs from the network';
  if ((first === 'pnpm' || first === 'yarn') && second === 'dlx')
    return `\`${first} dlx\` downloads the package it runs`;
  if (first === 'hatch' && (second === 'run' || second === 'test'))
    return '`hatch` builds its environments with packages from the network';
  if (first === 'tox' || first === 'nox') return `${first} builds its environments with packages from the network`;
  if (first === 'npx' || first === 'bunx') {
    const bin = (words.slice(1).find((w) => !w.startsWith('-')) ?? '').replace(/(.)@[^/]*$/, '$1');
    if (words.some((w) => ['-y', '--yes', '-p', '--package'].includes(w)))
      return `\`${first} ${words[1]}\` downloads the package it runs`;
    // With the dependencies installed, a program missing from them is one npx would download.
    if (bin && facts.localBins.size > 0 && !facts.localBins.has(bin))
      return `\`${bin}\` is not installed in node_modules/.bin, so \`${first}\` would download it`;
  }
  return undefined;
}

/** The program a simple command needs on PATH, if it is not there. */
function missingProgram(words: readonly string[], facts: ToolFacts): string | undefined {
  const [first = '', second = ''] = words;
  if (!first || SHELL_BUILTIN.has(first) || first.includes('/')) return undefined;
  if (first === 'cargo' && second && !second.startsWith('-') && !CARGO_BUILTIN.has(second)) {
    if (!facts.hasTool(`cargo-${second}`)) return `cargo-${second}`;
  }
  if (scriptName(words) === undefined && ['npx', 'bunx'].includes(first))
    return facts.hasTool(first) ? undefined : first;
  return facts.hasTool(first) || facts.localBins.has(first) ? undefined : first;
}

/**
 * Why a gate cannot run here, before it is ever run: a program not on PATH, or a command that fetches
 * from the network (the gates have none). Pure.
 */
export function cannotRun(command: string, facts: ToolFacts): string | undefined {
  for (const words of simpleCommands(command)) {
    const network = networkReason(words, facts);
    if (network) return network;
    const missing = missingProgram(words, facts);
    if (missing) return `\`${missing}\` is not on PATH`;
    const module = pythonModulesOf(words.join(' '))[0];
    if (module && facts.pythonModules && !facts.pythonModules.has(module))
      return `Python cannot import \`${module}\` here (\`${words[0]} -m ${module}\`)`;
  }
  return undefined;
}
