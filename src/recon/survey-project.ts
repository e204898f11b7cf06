import type { AgentAdapter } from '../agents/agent-adapter.js';
import { getAgentAdapter } from '../agents/registry.js';
import { loadConfig } from '../config/load-config.js';
import type { RunOptions } from '../config/options.js';
import { type RunFlags, resolveRunOptions } from '../config/resolve-options.js';
import { discoverGates, repoFiles } from '../gates/discover-gates.js';
import { filesGatesRun } from '../gates/files-gates-run.js';
import type { DroppedGate, Gate } from '../gates/gate.js';
import { Git } from '../git/git.js';
import { type GitState, readGitState } from '../git/read-git-state.js';
import { type LoadedPrd, loadPrd } from '../prd/load-prd.js';
import { findExecutable } from '../proc/find-executable.js';
import { decideSandbox, type SandboxDecision } from '../sandbox/decide-sandbox.js';
import { probeSandbox, type SandboxSupport } from '../sandbox/probe-sandbox.js';
import { refuseUnmeasurableCost, repositoryRoot } from './refusals.js';

/** What `run` and `fleet` both read before deciding anything: nothing is written. */
export interface Survey {
  root: string;
  /** Flags over star.config.json over defaults, resolved once. */
  options: RunOptions;
  adapter: AgentAdapter;
  /** --fallback-agent. */
  fallback?: AgentAdapter;
  git: Git;
  gitState: GitState;
  /** The project's quality gates, pinned for the run, and the repository's files they execute. */
  gates: Gate[];
  /** Commands recon found and left out, with the reason (the plan shows them). */
  droppedGates: DroppedGate[];
  gateFiles: string[];
  /** The agent's executable is on PATH. */
  agentFound: boolean;
  /** PRD mode: prd.json, validated. */
  prd?: LoadedPrd;
  /** What this machine's sandbox can do, and whether this run uses it. */
  sandboxSupport: SandboxSupport;
  sandbox: SandboxDecision;
}

/**
 * The repository around `cwd` (or exit 2 with `hint`), the options, the agents (a cost budget none of them can
 * measure is refused), prd.json, the git state, the gates and whether the agent is on PATH.
 */
export async function surveyProject(input: {
  cwd: string;
  taskText: string;
  flags: RunFlags;
  hint: string;
}): Promise<Survey> {
  // The trial sandbox needs nothing of the project: it starts first and runs beside everything else.
  const sandboxProbe = probeSandbox();
  sandboxProbe.catch(() => undefined);
  const root = await repositoryRoot(input.cwd, input.hint);
  const { config } = await loadConfig(root);
  const options = await resolveRunOptions({
    cwd: input.cwd,
    root,
    taskText: input.taskText,
    flags: input.flags,
    config,
  });
  const adapter = getAgentAdapter(options.agent);
  const fallback = options.fallbackAgent ? getAgentAdapter(options.fallbackAgent) : undefined;
  refuseUnmeasurableCost(options, [adapter, getAgentAdapter(options.verifierAgent), ...(fallback ? [fallback] : [])]);
  const git = new Git(root);
  const prd = options.prdFile ? await loadPrd(options.prdFile) : undefined;
  const [gitState, discovered, executable, sandboxSupport] = await Promise.all([
    readGitState(git),
    discoverGates(root, options.gates),
    findExecutable(adapter.executable({ agentCmd: options.agentCmd })),
    sandboxProbe,
  ]);
  const { gates, dropped: droppedGates } = discovered;
  const gateFiles = await filesGatesRun(repoFiles(root), gates);
  const sandbox = decideSandbox(options.sandbox.mode, sandboxSupport);
  const agentFound = Boolean(executable);
  return {
    root,
    options,
    adapter,
    fallback,
    git,
    gitState,
    gates,
    droppedGates,
    gateFiles,
    agentFound,
    prd,
    sandboxSupport,
    sandbox,
  };
}
