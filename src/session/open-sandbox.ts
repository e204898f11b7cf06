import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import type { RunOptions } from '../config/options.js';
import type { SandboxDecision } from '../sandbox/decide-sandbox.js';
import { parseEndpoints } from '../sandbox/endpoint.js';
import type { SandboxSupport } from '../sandbox/probe-sandbox.js';
import { hiddenToolPaths, resolveUserPath, Sandbox } from '../sandbox/sandbox.js';
import { codeCacheDir } from '../util/code-cache-file.js';

/** The run's sandbox, when recon decided to use one: what it mounts, hides and lets through. */
export function openSandbox(input: {
  decision: SandboxDecision;
  support: SandboxSupport;
  options: RunOptions;
  gitDir: string;
  /** Never writable inside (the evidence store). */
  keepReadOnly: string[];
  /** The work tree's dependency folders: read-only to agents (the gates' trusted copy). */
  dependencyDirs: readonly string[];
}): Sandbox | undefined {
  const { decision, support, options } = input;
  if (!decision.active || !support.bwrap) return undefined;
  return new Sandbox({
    bwrap: support.bwrap,
    root: options.root,
    gitDir: input.gitDir,
    keepReadOnly: [...input.keepReadOnly, ...codeCacheFolder()],
    network: decision.network,
    allowHosts: parseEndpoints(options.sandbox.allowHosts),
    allowWrite: options.sandbox.allowWrite.map((p) => resolveUserPath(p, options.root)),
    dependencyDirs: input.dependencyDirs,
    env: process.env,
    visible: hiddenToolPaths(process.env, options.root, options.agentCmd),
  });
}

/**
 * star-loop's compiled-code cache (src/start/load-bundle.ts) is code the next start runs: read-only to every
 * boxed process, even inside a folder it may write (--sandbox-allow-write). Made now, so no agent makes it first.
 */
function codeCacheFolder(): string[] {
  const dir = codeCacheDir(process.env, process.platform, homedir(), process.cwd());
  if (!dir) return [];
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // Not ours to make (a read-only home): then no agent writes it either, and star-loop writes no cache there.
  }
  return [dir];
}
