import { join, relative } from 'node:path';
import type { AgentRunContext } from '../agents/agent-run-context.js';
import { getAgentAdapter } from '../agents/registry.js';
import type { GateCache } from '../gates/gate-cache.js';
import type { Emit } from '../loop/events.js';
import { fleetPermit } from '../loop/fleet-permit.js';
import type { LoopContext } from '../loop/loop-context.js';
import type { Templates } from '../prompt/render-template.js';
import type { Recon } from '../recon/run-recon.js';
import type { Guard } from '../safety/check-safety.js';
import type { EvidenceStore } from '../safety/evidence-store.js';
import { ProtectedWalk } from '../safety/protected-files.js';
import { parseEndpoints } from '../sandbox/endpoint.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { RunPruner } from '../state/prune-runs.js';
import type { RunState } from '../state/state-schema.js';
import { writeState } from '../state/state-store.js';
import type { OpenedRun } from './open-run.js';

export interface LoopContextInput {
  recon: Recon;
  opened: OpenedRun;
  state: RunState;
  /** The environment agents and gates start from (with the push block). */
  env: NodeJS.ProcessEnv;
  emit: Emit;
  redactor: { redact: (text: string) => string; longest: number };
  /** Stop now, and stop after this iteration. */
  stop: AbortSignal;
  gentle: AbortController;
  templates: Templates;
  gitDir: string;
  agentLine?: (line: string) => void;
  /** The run's sandbox, when it has one. */
  sandbox?: Sandbox;
  /** The work tree's dependency folders (node_modules, .venv…): the gates' trusted copy. */
  dependencyDirs: readonly string[];
  /** Without a sandbox: their executables at start, to tell when an agent changed them. */
  trustedBins?: ReadonlyMap<string, string>;
  evidence: EvidenceStore;
  /** Gate results by tree, for this run (src/gates/gate-cache.ts). */
  gateCache?: GateCache;
}

/** Everything an iteration needs, resolved once: how agents run, what verification needs, the guard. */
export function buildLoopContext(input: LoopContextInput): LoopContext {
  const { recon, opened, state, env, emit, redactor } = input;
  const { options, git, paths } = opened;
  const agents: AgentRunContext = {
    root: options.root,
    signal: input.stop,
    stopRequested: input.gentle.signal,
    redactor,
    idleTimeoutMs: options.idleTimeoutMs,
    maxWaitMs: options.maxWaitMs,
    backoff: options.backoff,
    prices: options.prices,
    state,
    emit,
    agentLine: input.agentLine,
  };
  const guard: Guard = {
    git,
    root: options.root,
    gitDir: input.gitDir,
    starDir: paths.dir,
    branch: opened.branch,
    protectedPaths: options.protectedPaths,
    walk: new ProtectedWalk(options.root, options.protectedPaths),
    allowPush: options.allowPush,
    contained: Boolean(input.sandbox),
    promptFile: options.promptFile,
    prdFile: options.prdFile,
  };
  const prdRelative = options.prdFile ? relative(options.root, options.prdFile) : undefined;
  const verifier = getAgentAdapter(options.verifierAgent);
  return {
    options,
    plan: recon.plan,
    gates: recon.gates,
    git,
    paths,
    adapter: recon.adapter,
    fallback: recon.fallback,
    templates: input.templates,
    agents,
    runs: new RunPruner(paths.runs, options.keepRuns, options.keepRunsMb * 1024 * 1024),
    verify: {
      git,
      root: options.root,
      gates: recon.gates,
      gateFiles: recon.gateFiles,
      gateTimeoutMs: options.gateTimeoutMs,
      requireTests: options.requireTests,
      mutants: { max: options.mutants, timeFactor: options.mutantTime },
      gatePlace: {
        git,
        dependencyRoot: options.root,
        dependencyDirs: input.dependencyDirs,
        trustedBins: input.trustedBins,
        sandbox: input.sandbox,
        hosts: parseEndpoints(options.sandbox.gateHosts),
        env,
        timeoutMs: options.gateTimeoutMs,
        signal: input.stop,
        redactor,
        cache: input.gateCache,
        // A runner killed with -9 during a gate leaves it running: `resume` ends it by this id.
        onSpawn: async (pgid, tag) => {
          state.gatePgid = pgid;
          state.gateProcessTag = tag;
          await writeState(paths.state, state);
        },
        heartbeat: (gate, elapsedMs) =>
          emit({ type: 'gate.running', gate: gate.name, command: gate.command, elapsedMs }),
      },
      env,
      signal: input.stop,
      redactor,
      emit,
      prdRelative,
      task: options.task,
      sandbox: input.sandbox,
      verifier: {
        adapter: verifier,
        fallback: verifier === recon.adapter ? recon.fallback : undefined,
        model: options.verifierModel,
        agentCmd: options.agentCmd,
        passEnv: options.passEnv,
        timeoutMs: options.iterationTimeoutMs,
        templates: input.templates,
        guard,
        verdictFile: join(paths.dir, 'verdict.json'),
        claimFile: paths.claim,
        agents,
      },
    },
    emit,
    signal: input.stop,
    stopRequested: input.gentle.signal,
    env,
    redactor,
    guard,
    evidence: input.evidence,
    sandbox: input.sandbox,
    prdRelative,
    permit: fleetPermit(() => {
      if (input.gentle.signal.aborted) return;
      input.gentle.abort();
      emit({ type: 'warning', message: 'the fleet that started this worker is gone: stopping after this iteration' });
    }),
  };
}
