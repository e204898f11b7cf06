import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { bwrapArgs, networkEnv, PROXY_PORT } from './bwrap-args.js';
import type { Endpoint } from './endpoint.js';
import { NetworkGate } from './network-gate.js';
import type { SandboxSpec } from './sandbox-spec.js';

/** Folders under $HOME that hold toolchains (read-only inside): agents and gates need them, never write them. */
const TOOLCHAINS = [
  '.cargo',
  '.rustup',
  '.pyenv',
  '.nvm',
  '.volta',
  '.bun',
  '.deno',
  '.local/bin',
  '.local/lib',
  '.sdkman',
  '.m2',
  '.gradle',
];
/** Credential files inside those folders: they read as empty. */
const CREDENTIALS = [
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gradle/gradle.properties',
  '.m2/settings-security.xml',
];

/** What a whole run's sandbox is made of, decided once at start. */
export interface SandboxSetup {
  bwrap: string;
  /** The work tree, and its git directory (read-only inside). */
  root: string;
  gitDir: string;
  /** Never writable inside, wherever they are (the evidence store, if a writable folder holds it). */
  keepReadOnly: readonly string[];
  /** 'filtered': only the allowed hosts; 'open': socat is missing, the network is not limited. */
  network: 'filtered' | 'open';
  /** Hosts every agent may reach besides its own, and folders it may write (--sandbox-allow-host, -write). */
  allowHosts: readonly Endpoint[];
  allowWrite: readonly string[];
  /** Installed dependencies in the work tree (node_modules, .venv…): read-only to agents, the gates' trusted copy. */
  dependencyDirs: readonly string[];
  /** HOME and PATH of the run. */
  env: NodeJS.ProcessEnv;
  /**
   * Host paths the sandbox would hide that the agent's own command needs, read-only inside: PATH folders
   * under /tmp, and files the agent command names under /tmp or $HOME (hiddenToolPaths).
   */
  visible?: readonly string[];
}

/** One sandboxed process's view, on top of the run's. */
export interface BoxOptions {
  /** A throw-away tree mounted at the work tree's path (gates, the verifier); the work tree itself if absent. */
  tree?: string;
  /**
   * Where the tree is mounted and the process works: the work tree's path unless given. A linked worktree
   * of star-loop's own (the pre-commit hook's) stays at its own path, so its `.git` file leads to its git dir.
   */
  at?: string;
  treeWritable: boolean;
  /** The agent's own hosts (its model's API), or none at all (`undefined`: no network). */
  hosts?: readonly Endpoint[];
  /** The agent's own config and state under $HOME, and elsewhere (its env dirs): writable. */
  homeWritable?: readonly string[];
  writable?: readonly string[];
  /** Files in the tree that stay read-only (existing protected files, the prompt file). */
  readOnly?: readonly string[];
  /** A scratch `.star` for the agent's claim, plan and verdict. */
  starScratch?: boolean;
  /** Host files seen read-only at their own path (an agent's own script, wherever star-loop is installed). */
  visible?: readonly string[];
  /**
   * Dependency folders mounted read-only (host path → sandbox path), in place of the work tree's own (the
   * gates' trusted copy; none at all for a fresh install).
   */
  dependencies?: ReadonlyArray<{ from: string; to: string }>;
  /** `hosts` alone, without the run's --sandbox-allow-host list (the gates: only their own hosts). */
  hostsAsGiven?: boolean;
}

/** A process's spawn arguments, rewritten to run inside a sandbox. */
export type ProcessWrap = <T extends { command: string; args: string[]; env: Record<string, string | undefined> }>(
  run: T,
) => T;

/** A sandbox ready for one process (or several attempts of one agent run): its spec, its gate, its scratch. */
export class Box {
  constructor(
    readonly spec: SandboxSpec,
    private readonly bwrap: string,
    private readonly gate?: NetworkGate,
  ) {}

  /** The process, as bubblewrap runs it in this sandbox. */
  wrap<T extends { command: string; args: string[]; env: Record<string, string | undefined> }>(run: T): T {
    return {
      ...run,
      command: this.bwrap,
      args: bwrapArgs(this.spec, run.command, run.args),
      // /tmp is the sandbox's own: a TMPDIR elsewhere would not be writable inside.
      env: { ...run.env, TMPDIR: '/tmp', ...networkEnv(this.spec.network) },
    };
  }

  /** Ends the network gate and removes the scratch; says which hosts were refused. */
  async close(): Promise<{ denied: string[] }> {
    const denied = this.gate ? [...this.gate.denied] : [];
    await this.gate?.close();
    if (this.spec.starScratch) await rm(this.spec.starScratch, { recursive: true, force: true });
    return { denied };
  }
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** The folders under $HOME a run needs read-only: every PATH entry there (its top folder), and known toolchains. */
export function toolchainDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  if (!home) return [];
  const dirs = new Set(TOOLCHAINS.map((d) => join(home, d)));
  for (const entry of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(entry) || !inside(entry, home) || entry === home) continue;
    const [top] = relative(home, entry).split(sep);
    if (top) dirs.add(join(home, top));
  }
  return [...dirs].sort();
}

/**
 * The run's sandbox: bubblewrap around every agent run and gate, so every process an agent starts ends
 * with it, writes go only where they may, $HOME is a scratch folder, and the network reaches only the
 * allowed hosts (src/sandbox/network-gate.ts).
 */
export class Sandbox {
  constructor(readonly setup: SandboxSetup) {}

  async box(options: BoxOptions): Promise<Box> {
    const { setup } = this;
    const home = setup.env.HOME && isAbsolute(setup.env.HOME) ? setup.env.HOME : undefined;
    const writable = [...setup.allowWrite, ...(options.writable ?? [])].filter((p) => existsSync(p));
    const homeWritable = (options.homeWritable ?? []).filter((p) => home && inside(p, home));
    writable.push(...(options.homeWritable ?? []).filter((p) => !(home && inside(p, home)) && existsSync(p)));
    const readOnly = [
      { from: setup.gitDir, to: setup.gitDir },
      ...(options.readOnly ?? []).map((p) => ({ from: join(setup.root, p), to: join(setup.root, p) })),
      ...(options.dependencies ??
        setup.dependencyDirs.map((d) => ({ from: join(setup.root, d), to: join(setup.root, d) }))),
      ...setup.keepReadOnly
        .filter((p) => [...writable, ...homeWritable].some((w) => inside(p, w)))
        .map((p) => ({ from: p, to: p })),
      ...[...(setup.visible ?? []), ...(options.visible ?? [])].map((p) => ({ from: p, to: p })),
    ];
    let gate: NetworkGate | undefined;
    let network: SandboxSpec['network'] = { mode: 'none' };
    if (options.hosts) {
      if (setup.network === 'open') network = { mode: 'open' };
      else {
        gate = await NetworkGate.open([...options.hosts, ...(options.hostsAsGiven ? [] : setup.allowHosts)]);
        const forwardedPorts = gate.forwardedPorts;
        const proxyPort = forwardedPorts.includes(PROXY_PORT) ? PROXY_PORT + 1 : PROXY_PORT;
        network = { mode: 'filtered', dir: gate.dir, proxyPort, forwardedPorts };
      }
    }
    const spec: SandboxSpec = {
      root: options.at ?? setup.root,
      tree: options.tree,
      treeWritable: options.treeWritable,
      readOnly,
      writable,
      home,
      homeReadOnly: home ? toolchainDirs(setup.env) : [],
      homeWritable,
      hidden: home ? CREDENTIALS.map((c) => join(home, c)).filter((c) => existsSync(c)) : [],
      starScratch: options.starScratch ? await mkdtemp(join(tmpdir(), 'star-loop-scratch-')) : undefined,
      network,
    };
    return new Box(spec, setup.bwrap, gate);
  }
}

/**
 * What the sandbox hides (its own empty /tmp and $HOME) that a run's tools live in: PATH folders under
 * /tmp (a project's `node_modules/.bin`: the whole `node_modules`, its links point there), and absolute
 * paths the agent command names under /tmp or $HOME (a script, never a folder: $HOME's credentials stay
 * hidden). Never the work tree or a folder holding it.
 */
export function hiddenToolPaths(env: NodeJS.ProcessEnv, root: string, agentCmd?: string): string[] {
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : undefined;
  const tmp = '/tmp';
  const out = new Set<string>();
  for (const entry of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(entry) || entry === tmp || !inside(entry, tmp)) continue;
    const parent = dirname(entry);
    out.add(basename(entry) === '.bin' && basename(parent) === 'node_modules' ? parent : entry);
  }
  for (const m of (agentCmd ?? '').matchAll(/(?:^|[\s'"=])(\/[^\s'"]+)/g)) {
    const path = m[1] ?? '';
    if (!(inside(path, tmp) || (home && inside(path, home))) || path === tmp || path === home) continue;
    if (existsSync(path) && statSync(path).isFile()) out.add(path);
  }
  return [...out].filter((p) => !inside(root, p) && !inside(p, root)).sort();
}

/** A path given on the command line or in star.config.json: `~` is $HOME, relative is to the repository root. */
export function resolveUserPath(path: string, root: string, home = process.env.HOME ?? ''): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1));
  return resolve(root, path);
}
