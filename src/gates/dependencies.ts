import { readdir, readlink, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Folders that hold installed dependencies: never in git, needed by the gates. */
export const DEPENDENCY_DIR_NAMES: ReadonlySet<string> = new Set(['node_modules', '.venv', 'venv']);

/** Folders a walk for dependency folders does not enter. */
const NOT_ENTERED = new Set(['.git', '.star', '.hg', 'target', 'dist', 'build', '__pycache__']);

/**
 * The dependency folders of a work tree, relative to it: at the top and in a monorepo's packages (a few
 * levels down), not inside another dependency folder.
 */
export async function findDependencyDirs(root: string, depth = 3): Promise<string[]> {
  const found: string[] = [];
  const walk = async (rel: string, level: number): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const path = rel ? join(rel, entry.name) : entry.name;
      if (DEPENDENCY_DIR_NAMES.has(entry.name)) found.push(path);
      else if (level < depth && !NOT_ENTERED.has(entry.name)) await walk(path, level + 1);
    }
  };
  await walk('', 0);
  return found.sort();
}

/** How a JavaScript package manager installs exactly what its lockfile says, by lockfile. */
const INSTALLS: ReadonlyArray<{ lockfile: string; command: string }> = [
  { lockfile: 'package-lock.json', command: 'npm ci --no-audit --no-fund' },
  { lockfile: 'npm-shrinkwrap.json', command: 'npm ci --no-audit --no-fund' },
  { lockfile: 'pnpm-lock.yaml', command: 'pnpm install --frozen-lockfile' },
  { lockfile: 'yarn.lock', command: 'yarn install --frozen-lockfile' },
  { lockfile: 'bun.lock', command: 'bun install --frozen-lockfile' },
  { lockfile: 'bun.lockb', command: 'bun install --frozen-lockfile' },
];

/** Lockfiles whose dependencies star-loop does not re-install (the gates keep the trusted ones). */
const OTHER_LOCKFILES = new Set(['poetry.lock', 'uv.lock', 'Pipfile.lock', 'Cargo.lock', 'Gemfile.lock', 'go.sum']);

export type DependencyPlan =
  /** The trusted dependencies (installed before the run) serve the gates, read-only. */
  | { kind: 'trusted' }
  /** The lockfile changed since they were installed: a fresh install, in the gates' tree, first. */
  | { kind: 'install'; lockfile: string; command: string }
  /** A lockfile star-loop cannot re-install changed: the gates run with the trusted dependencies, said so. */
  | { kind: 'stale'; lockfile: string };

/**
 * Whether the trusted dependencies still fit the commit being judged, from the files changed since they
 * were installed (pure). Top-level lockfiles only: that is where package managers keep a workspace's one.
 */
export function planDependencies(changedSinceInstall: readonly string[]): DependencyPlan {
  const changed = new Set(changedSinceInstall.filter((f) => !f.includes('/')));
  for (const install of INSTALLS) {
    if (changed.has(install.lockfile)) return { kind: 'install', ...install };
  }
  for (const file of changed) if (OTHER_LOCKFILES.has(basename(file))) return { kind: 'stale', lockfile: file };
  return { kind: 'trusted' };
}

/** The folders of executables inside a dependency folder: what a gate's PATH starts with. */
const BIN_DIRS = ['.bin', 'bin', 'Scripts'];

/**
 * `path → what it is` for every executable a gate can take from the dependency folders (a symlink's
 * target, a file's size and modification time). Without a sandbox an agent can write there: a change since
 * the run started is how star-loop tells.
 */
export async function fingerprintBins(root: string, dependencyDirs: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const dir of dependencyDirs) {
    for (const bin of BIN_DIRS) {
      const rel = join(dir, bin);
      const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const path = join(rel, entry.name);
        const full = join(root, path);
        const link = entry.isSymbolicLink() ? await readlink(full).catch(() => '?') : undefined;
        const st = await stat(full).catch(() => undefined);
        out.set(path, `${link ?? ''}|${st ? `${st.size}:${st.mtimeMs}:${st.mode}` : 'dangling'}`);
      }
    }
  }
  return out;
}

/** The executables added, removed or changed between two fingerprints (pure). */
export function changedBins(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changed = new Set<string>();
  for (const [path, print] of after) if (before.get(path) !== print) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}
