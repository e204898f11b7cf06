import { existsSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Git } from '../git/git.js';
import { runProcess } from '../proc/run-process.js';
import type { Endpoint } from '../sandbox/endpoint.js';
import type { ProcessWrap, Sandbox } from '../sandbox/sandbox.js';
import type { Finding } from '../state/finding-schema.js';
import type { GateResult } from '../state/state-schema.js';
import { changedBins, type DependencyPlan, fingerprintBins, planDependencies } from './dependencies.js';
import type { Gate } from './gate.js';
import type { GateCache } from './gate-cache.js';

/** Hosts a fresh install of JavaScript dependencies reaches (plus the configured sandbox.gateHosts). */
const REGISTRY_HOSTS: readonly Endpoint[] = [
  { host: 'registry.npmjs.org', port: 443 },
  { host: 'registry.yarnpkg.com', port: 443 },
];

/** Where a run's gates run, resolved once: every gate bench of the run is made from it. */
export interface GatePlace {
  git: Git;
  /** The work tree the trusted dependencies are in, and those folders relative to it. */
  dependencyRoot: string;
  dependencyDirs: readonly string[];
  /** The run's sandbox; absent with --sandbox off (or where there is none): then only the tree is clean. */
  sandbox?: Sandbox;
  /** Hosts the gates may reach (sandbox.gateHosts in star.config.json); none by default. */
  hosts: readonly Endpoint[];
  /**
   * Without a sandbox: the dependency folders' executables as they were when the run started
   * (src/gates/dependencies.ts fingerprintBins); a change since is a finding, agents could write there.
   */
  trustedBins?: ReadonlyMap<string, string>;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  redactor?: { redact: (text: string) => string; longest: number };
  /** Results by tree, so a tree already checked is not checked again (src/gates/gate-cache.ts). */
  cache?: GateCache;
  /** Told each gate's process group as it starts (a runner killed with -9 finds and ends it on resume). */
  onSpawn?: (pgid: number, tag: string) => Promise<void>;
  /** A gate still running: called every `heartbeatMs` (15 s by default) while it runs. */
  heartbeat?: (gate: Gate, elapsedMs: number) => void;
  heartbeatMs?: number;
}

/** One gate bench: the commit being judged, and the commit the trusted dependencies were installed for. */
export interface GateBenchInput extends GatePlace {
  /** Its committed files are all the gates see. */
  commit: string;
  /** The baseline's commit: a lockfile changed since then means a fresh install. */
  installedAt?: string;
  logFile: string;
  /**
   * Files laid over the commit's (`null`: removed): the claim's tests on its base commit (fail-to-pass),
   * one mutated source file (mutants). Paths relative to the root.
   */
  overlay?: ReadonlyArray<{ path: string; content: string | null }>;
}

/** A clean place for the gates: where they run, how (in the sandbox or not), and its removal. */
export interface GateBench {
  /** The copy on the host (in the sandbox it is seen at the work tree's path). */
  cwd: string;
  /** Where the gates' processes see it. */
  seenAt: string;
  /** A folder the gates may write their test evidence to (src/evidence/evidence-env.ts). */
  evidenceDir: string;
  wrap?: ProcessWrap;
  dependencies: DependencyPlan;
  /** What makes the gates' result untrustworthy (without a sandbox: a dependency's executable changed). */
  findings: Finding[];
  /**
   * After each gate: the files it changed in the copy, if any — kept on a ref of star-loop's own for review,
   * then put back, so the next gate sees the commit being judged. A gate must not write; this is the backstop.
   */
  settle(gate: string): Promise<GateResult['modified']>;
  close(): Promise<void>;
}

/**
 * A throw-away copy of the commit being judged — nothing uncommitted or ignored, nothing an agent's
 * background process can swap — with the trusted dependencies beside it (read-only in the sandbox), or a
 * fresh install when the lockfile changed since they were installed. In the sandbox it is mounted at the
 * work tree's path, with no network but `hosts`, and every process a gate starts ends with it.
 */
export async function openGateBench(input: GateBenchInput): Promise<GateBench> {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-gates-'));
  const tree = join(dir, 'tree');
  const evidenceDir = join(dir, 'evidence');
  const boxes: Array<{ close(): Promise<unknown> }> = [];
  const close = async () => {
    for (const box of boxes) await box.close();
    await rm(dir, { recursive: true, force: true });
  };
  /** The copy as the gates must find it: the commit, its overlay, a fresh install's (ignored) files. */
  let clean = '';
  const settled = async (bench: GateBench) => {
    clean = await input.git.folderTree(tree);
    return bench;
  };
  const settle = async (gate: string): Promise<GateResult['modified']> => {
    const now = await input.git.folderTree(tree);
    if (now === clean) return undefined;
    const files = await input.git.filesChangedBetween(clean, now);
    const kept = await input.git.commitTree(now, [input.commit], `star-loop: files gate "${gate}" changed`);
    const ref = `refs/star-loop/gate-edits/${kept}`;
    await input.git.keepRef(ref, kept);
    await input.git.resetFolder(tree, clean);
    await appendFile(
      input.logFile,
      `===== gate ${gate} modified files while it ran: ${files.join(', ')} — kept at ${ref}, put back\n`,
    );
    return { files, ref };
  };
  try {
    await input.git.exportCommit(input.commit, tree, { keepIndex: true });
    await mkdir(evidenceDir);
    for (const { path, content } of input.overlay ?? []) {
      const file = join(tree, path);
      if (content === null) await rm(file, { force: true });
      else {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    }
    const changed = input.installedAt ? await input.git.filesChangedBetween(input.installedAt, input.commit) : [];
    const dependencies = planDependencies(changed);
    const fresh = dependencies.kind === 'install';
    const trusted = fresh ? [] : input.dependencyDirs.filter((d) => existsSync(join(input.dependencyRoot, d)));
    const { sandbox } = input;
    if (!sandbox) {
      // Without a sandbox the trusted folders are linked in, and checked against what they were at start.
      for (const d of trusted) {
        if (existsSync(join(tree, d))) continue;
        await symlink(join(input.dependencyRoot, d), join(tree, d)).catch(() => undefined);
      }
      const findings: Finding[] = [];
      if (input.trustedBins && !fresh) {
        const changed = changedBins(input.trustedBins, await fingerprintBins(input.dependencyRoot, trusted));
        if (changed.length > 0) findings.push(binsChanged(changed));
      }
      const bench: GateBench = { cwd: tree, seenAt: tree, evidenceDir, dependencies, findings, settle, close };
      if (fresh) await install(bench, input, dependencies.command);
      return await settled(bench);
    }
    const { root } = sandbox.setup;
    const box = await sandbox.box({
      tree,
      treeWritable: true,
      hosts: input.hosts.length > 0 ? input.hosts : undefined,
      hostsAsGiven: true,
      dependencies: trusted.map((d) => ({ from: join(input.dependencyRoot, d), to: join(root, d) })),
      writable: [evidenceDir],
    });
    boxes.push(box);
    const bench: GateBench = {
      cwd: tree,
      seenAt: root,
      evidenceDir,
      wrap: (run) => box.wrap(run),
      dependencies,
      findings: [],
      settle,
      close,
    };
    if (fresh) {
      const home = input.env.HOME;
      const installBox = await sandbox.box({
        tree,
        treeWritable: true,
        hosts: [...REGISTRY_HOSTS, ...input.hosts],
        hostsAsGiven: true,
        dependencies: [],
        // The package manager's cache: an install checks every package against the lockfile's hashes.
        homeWritable: home ? [join(home, '.npm'), join(home, '.cache')] : [],
      });
      boxes.push(installBox);
      await install({ ...bench, wrap: (run) => installBox.wrap(run) }, input, dependencies.command);
    }
    return await settled(bench);
  } catch (error) {
    await close();
    throw error;
  }
}

function binsChanged(changed: readonly string[]): Finding {
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '');
  return {
    rule: 'gate-changed',
    file: changed[0],
    detail:
      `${shown} changed since the run started, with the lockfile unchanged: the gates take their tools from ` +
      'there, so their result cannot be trusted (without the sandbox, agents can write the dependency folders)',
  };
}

/** The fresh install, logged with the gates; a failed install shows as the gates failing without it. */
async function install(bench: GateBench, input: GateBenchInput, command: string): Promise<void> {
  await appendFile(input.logFile, `\n===== dependencies: the lockfile changed since they were installed: ${command}\n`);
  const run = { command: 'sh', args: ['-c', command], env: { ...input.env, CI: input.env.CI ?? 'true' } };
  const wrapped = bench.wrap ? bench.wrap(run) : run;
  const result = await runProcess({
    ...wrapped,
    cwd: bench.cwd,
    logFile: input.logFile,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    tailBytes: 2048,
    redactor: input.redactor,
  });
  await appendFile(input.logFile, `===== dependencies: ${result.exitCode === 0 ? 'installed' : 'install failed'}\n`);
}
