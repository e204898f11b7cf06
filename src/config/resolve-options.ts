import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { parseEndpoint } from '../sandbox/endpoint.js';
import { parseDuration } from '../util/parse-duration.js';
import type { StarConfig } from './config-schema.js';
import { DEFAULTS, type OnStall, type RunOptions, type SandboxMode, type VerifyMode } from './options.js';

/** The `run` command's flags as commander hands them over: undefined when not given. */
export interface RunFlags {
  prd?: string;
  story?: string;
  prompt?: string;
  dryRun?: boolean;
  agent?: string;
  agentCmd?: string;
  model?: string;
  maxIterations?: string;
  maxTime?: string;
  maxCost?: string;
  maxTokens?: string;
  maxTurns?: string;
  maxWait?: string;
  fallbackAgent?: string;
  passEnv?: string[];
  stallAfter?: string;
  parkAfter?: string;
  sameErrorLimit?: string;
  onStall?: string;
  iterationTimeout?: string;
  idleTimeout?: string;
  gateTimeout?: string;
  json?: boolean;
  verbose?: boolean;
  debug?: boolean;
  verify?: string;
  verifierAgent?: string;
  requireTests?: boolean;
  requireTestsGate?: boolean;
  mutants?: string;
  verifierModel?: string;
  allowDirty?: boolean;
  allowDefaultBranch?: boolean;
  allowPush?: boolean;
  branch?: string;
  base?: string;
  worktree?: boolean;
  protect?: string[];
  onFinish?: string;
  sandbox?: string;
  sandboxAllowHost?: string[];
  sandboxAllowWrite?: string[];
}

function positiveInt(value: string | number, field: string): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InputError(`${field}: expected a whole number above 0, got "${value}"`);
  return n;
}

function usd(value: string | number, field: string): number {
  const n = typeof value === 'number' ? value : Number(value.replace(/^\$/, ''));
  if (!Number.isFinite(n) || n <= 0)
    throw new InputError(`${field}: expected an amount in USD above 0, such as 5 or 12.50, got "${value}"`);
  return n;
}

function duration(value: string, field: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InputError(`${field}: expected a duration such as 90s, 45m or 8h, got "${value}"`);
  return ms;
}

/** Nothing loops forever: no flag or config lifts this. */
export const MAX_ITERATIONS_CAP = 1000;

function verifyMode(value: string, field: string): VerifyMode {
  if (value === 'claims' || value === 'every' || value === 'off') return value;
  throw new InputError(`${field}: expected claims, every or off, got "${value}"`);
}

function mutantCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new InputError(`--mutants: expected a whole number, 0 to turn mutants off, got "${value}"`);
  }
  return n;
}

function sandboxMode(value: string, field: string): SandboxMode {
  if (value === 'auto' || value === 'required' || value === 'off') return value;
  throw new InputError(`${field}: expected auto, required or off, got "${value}"`);
}

/** The sandbox's settings: flags add hosts and folders to the config's; the flag's mode wins. */
function resolveSandbox(flags: RunFlags, config: StarConfig): RunOptions['sandbox'] {
  const fromConfig = typeof config.sandbox === 'string' ? { mode: config.sandbox } : (config.sandbox ?? {});
  const mode =
    flags.sandbox !== undefined ? sandboxMode(flags.sandbox, '--sandbox') : (fromConfig.mode ?? DEFAULTS.sandbox);
  const allowHosts = [...(fromConfig.allowHosts ?? []), ...(flags.sandboxAllowHost ?? [])];
  for (const host of allowHosts) {
    if (!parseEndpoint(host)) {
      throw new InputError(
        `sandbox host "${host}": expected host, host:port or a URL`,
        'e.g. --sandbox-allow-host registry.npmjs.org',
      );
    }
  }
  for (const host of fromConfig.gateHosts ?? []) {
    if (!parseEndpoint(host))
      throw new InputError(`star.config.json: sandbox.gateHosts: "${host}" is not host, host:port or a URL`);
  }
  return {
    mode,
    allowHosts,
    allowWrite: [...(fromConfig.allowWrite ?? []), ...(flags.sandboxAllowWrite ?? [])],
    gateHosts: fromConfig.gateHosts ?? [],
  };
}

function onStall(value: string, field: string): OnStall {
  if (value === 'pause' || value === 'stop' || value === 'continue') return value;
  throw new InputError(`${field}: expected pause, stop or continue, got "${value}"`);
}

/** What to work on: a prd.json, or a task given as text or read from a prompt file. */
async function resolveTarget(input: {
  cwd: string;
  root: string;
  taskText?: string;
  flags: RunFlags;
  config: StarConfig;
}) {
  const { cwd, root, flags, config } = input;
  const taskText = input.taskText?.trim() || undefined;
  if (flags.prd && (flags.prompt || taskText)) {
    throw new InputError('give either --prd FILE or a task (text or --prompt FILE), not both');
  }
  if (flags.prompt && taskText) throw new InputError('give the task as text or as --prompt FILE, not both');
  // A task on the command line wins over a prd named in star.config.json, and the other way round.
  const prdPath = flags.prd
    ? resolve(cwd, flags.prd)
    : !taskText && !flags.prompt && config.prd
      ? resolve(root, config.prd)
      : undefined;
  const promptPath = flags.prompt
    ? resolve(cwd, flags.prompt)
    : !prdPath && !taskText && config.prompt
      ? resolve(root, config.prompt)
      : undefined;
  if (!prdPath && !promptPath && !taskText) {
    throw new InputError(
      'nothing to do: give a task as text, --prompt FILE, or --prd FILE',
      'e.g. `star-loop run --prd prd.json` or `star-loop run "fix the flaky date test"`',
    );
  }
  let task = taskText;
  if (!prdPath && promptPath) {
    try {
      task = (await readFile(promptPath, 'utf8')).trim();
    } catch {
      throw new InputError(
        `--prompt ${promptPath}: no such file`,
        'pass the path of your PROMPT.md, relative to the current directory',
      );
    }
    if (!task) throw new InputError(`--prompt ${promptPath}: the file is empty`, 'write the task into it');
  }
  return { prdPath, promptPath, task };
}

/** The limits, budgets, breakers and timeouts: each from its flag, else star.config.json, else the default. */
function resolveLimits(flags: RunFlags, config: StarConfig) {
  const c = 'star.config.json';
  const maxTime = flags.maxTime ?? config.maxTime;
  const idleTimeout = flags.idleTimeout ?? config.idleTimeout;
  const count = (flag: string | undefined, name: string, fromConfig: number | undefined, fallback: number) =>
    flag !== undefined ? positiveInt(flag, name) : (fromConfig ?? fallback);
  return {
    maxIterations: count(flags.maxIterations, '--max-iterations', config.maxIterations, DEFAULTS.maxIterations),
    maxTimeMs: maxTime === undefined ? undefined : duration(maxTime, flags.maxTime ? '--max-time' : `${c}: maxTime`),
    maxCostUsd: flags.maxCost !== undefined ? usd(flags.maxCost, '--max-cost') : config.maxCost,
    maxTokens: flags.maxTokens !== undefined ? positiveInt(flags.maxTokens, '--max-tokens') : config.maxTokens,
    maxTurns: flags.maxTurns !== undefined ? positiveInt(flags.maxTurns, '--max-turns') : config.maxTurns,
    maxWaitMs: duration(
      flags.maxWait ?? config.maxWait ?? DEFAULTS.maxWait,
      flags.maxWait ? '--max-wait' : `${c}: maxWait`,
    ),
    backoff: {
      initialMs: duration(config.backoff?.initial ?? DEFAULTS.backoffInitial, `${c}: backoff.initial`),
      maxMs: duration(config.backoff?.max ?? DEFAULTS.backoffMax, `${c}: backoff.max`),
    },
    stallAfter: count(flags.stallAfter, '--stall-after', config.stallAfter, DEFAULTS.stallAfter),
    parkAfter: count(flags.parkAfter, '--park-after', config.parkAfter, DEFAULTS.parkAfter),
    sameErrorLimit: count(flags.sameErrorLimit, '--same-error-limit', config.sameErrorLimit, DEFAULTS.sameErrorLimit),
    onStall: flags.onStall !== undefined ? onStall(flags.onStall, '--on-stall') : (config.onStall ?? DEFAULTS.onStall),
    iterationTimeoutMs: duration(
      flags.iterationTimeout ?? config.iterationTimeout ?? DEFAULTS.iterationTimeout,
      flags.iterationTimeout ? '--iteration-timeout' : `${c}: iterationTimeout`,
    ),
    idleTimeoutMs:
      idleTimeout === undefined
        ? undefined
        : duration(idleTimeout, flags.idleTimeout ? '--idle-timeout' : `${c}: idleTimeout`),
    gateTimeoutMs: duration(
      flags.gateTimeout ?? config.gateTimeout ?? DEFAULTS.gateTimeout,
      flags.gateTimeout ? '--gate-timeout' : `${c}: gateTimeout`,
    ),
  };
}

/** The combinations no single value shows wrong. */
function checkOptions(options: RunOptions, flags: RunFlags): void {
  if (options.maxIterations > MAX_ITERATIONS_CAP) {
    throw new InputError(
      `--max-iterations ${options.maxIterations}: at most ${MAX_ITERATIONS_CAP}, an absolute cap no flag lifts`,
      'split the work into runs of at most 1000 iterations',
    );
  }
  if (options.verify !== 'off' && options.maxIterations < 2) {
    throw new InputError(
      `${flags.maxIterations !== undefined ? '--max-iterations' : 'star.config.json: maxIterations'} ` +
        `${options.maxIterations} leaves no room to verify a claim: one verifier run is always kept in reserve`,
      'use --max-iterations 2 or more, or --verify off (not recommended)',
    );
  }
  if (options.agent === 'command' && !options.agentCmd) {
    throw new InputError(
      '--agent command needs --agent-cmd "CMD"',
      'e.g. --agent-cmd "my-agent --headless" (the prompt arrives on stdin)',
    );
  }
  if (options.story && !options.prdFile)
    throw new InputError('--story needs --prd FILE', 'e.g. `star-loop run --prd prd.json --story US-002`');
  if (options.prdFile && !isAbsolute(options.prdFile)) throw new Error('prd path must be absolute');
}

/**
 * Resolves flags over star.config.json over defaults. `cwd` resolves paths given on the command line;
 * paths from the config file are relative to the repository root.
 */
export async function resolveRunOptions(input: {
  cwd: string;
  root: string;
  taskText?: string;
  flags: RunFlags;
  config: StarConfig;
}): Promise<RunOptions> {
  const { root, flags, config } = input;
  const { prdPath, promptPath, task } = await resolveTarget(input);
  const agent = flags.agentCmd && !flags.agent ? 'command' : (flags.agent ?? config.agent ?? DEFAULTS.agent);
  const verifierAgent = flags.verifierAgent ?? config.verifierAgent ?? agent;
  const model = flags.model ?? config.model;
  const verifierModel = flags.verifierModel ?? config.verifierModel ?? (verifierAgent === agent ? model : undefined);
  const options: RunOptions = {
    root,
    mode: prdPath ? 'prd' : 'task',
    prdFile: prdPath,
    story: flags.story,
    task: prdPath ? undefined : task,
    promptFile: prdPath ? undefined : promptPath,
    dryRun: flags.dryRun ?? false,
    agent,
    agentCmd: flags.agentCmd ?? config.agentCmd,
    model,
    ...resolveLimits(flags, config),
    fallbackAgent: flags.fallbackAgent ?? config.fallbackAgent,
    prices: config.prices ?? {},
    passEnv: [...(config.passEnv ?? []), ...(flags.passEnv ?? [])],
    json: flags.json ?? false,
    verbose: flags.verbose ?? false,
    debug: flags.debug ?? false,
    verify: flags.verify !== undefined ? verifyMode(flags.verify, '--verify') : (config.verify ?? DEFAULTS.verify),
    verifierAgent,
    verifierModel,
    requireTests: flags.requireTests ?? config.requireTests ?? false,
    requireTestsGate: flags.requireTestsGate ?? config.requireTestsGate ?? false,
    mutants: flags.mutants !== undefined ? mutantCount(flags.mutants) : (config.mutants ?? 6),
    mutantTime: config.mutantTime ?? 2,
    keepRuns: config.keepRuns ?? 200,
    keepRunsMb: config.keepRunsMb ?? 1024,
    allowDirty: flags.allowDirty ?? false,
    allowDefaultBranch: flags.allowDefaultBranch ?? false,
    allowPush: flags.allowPush ?? false,
    branch: flags.branch ?? config.branch,
    base: flags.base ?? config.base,
    worktree: flags.worktree ?? false,
    onFinish: flags.onFinish ?? config.onFinish,
    protectedPaths: [
      ...(config.protectedPaths ?? DEFAULTS.protectedPaths),
      ...(config.protect ?? []),
      ...(flags.protect ?? []),
    ],
    gates: config.gates,
    sandbox: resolveSandbox(flags, config),
  };
  checkOptions(options, flags);
  return options;
}
