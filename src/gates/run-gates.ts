import { appendFile, copyFile, mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { collectTestReport } from '../evidence/collect-test-report.js';
import { evidenceEnv } from '../evidence/evidence-env.js';
import { nodeReporterFor } from '../evidence/node-reporter.js';
import { runProcess } from '../proc/run-process.js';
import type { ProcessWrap } from '../sandbox/sandbox.js';
import type { Finding } from '../state/finding-schema.js';
import type { GateResult } from '../state/state-schema.js';
import type { TestsFile } from '../state/test-report-schema.js';
import type { Gate } from './gate.js';
import { type GateBenchInput, type GatePlace, openGateBench } from './gate-bench.js';
import { plainOutputEnv } from './plain-output-env.js';

/** How often a gate still running says so (a log read from a non-TTY run must not look hung). */
const HEARTBEAT_MS = 15_000;

export interface GateRunOptions {
  /** Where the gates run (a gate bench's copy of the commit: src/gates/gate-bench.ts). */
  root: string;
  /** The sandbox around each gate, when there is one. */
  wrap?: ProcessWrap;
  logFile: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  redactor?: { redact: (text: string) => string; longest: number };
  onResult?: (result: GateResult) => void;
  heartbeat?: (gate: Gate, elapsedMs: number) => void;
  heartbeatMs?: number;
  /** Told each gate's process group as it starts. */
  onSpawn?: (pgid: number, tag: string) => Promise<void>;
  /** After each gate: the files it changed, put back (src/gates/gate-bench.ts). */
  settle?: (gate: string) => Promise<GateResult['modified']>;
  /** Collect every gate's test evidence: its folder, and where the gates' processes see `root`. */
  evidence?: { dir: string; seenAt: string };
}

/** One gate run, with its full test report (tests.json) beside the result kept in state. */
export interface GateRun {
  result: GateResult;
  tests: TestsFile['gates'][number];
}

/**
 * The gates on one commit, in a gate bench of their own (src/gates/gate-bench.ts), removed after; with
 * what the bench found that makes their result untrustworthy.
 */
export async function runGatesOn(
  gates: readonly Gate[],
  input: GateBenchInput,
  onResult?: (result: GateResult) => void,
): Promise<{ results: GateResult[]; findings: Finding[]; tests: TestsFile['gates'] }> {
  const cache = input.cache && !input.overlay?.length ? input.cache : undefined;
  const key = cache ? await cacheKey(input, gates, input.commit) : undefined;
  const hit = key ? await cache?.get(key) : undefined;
  if (hit && hit.results.length === gates.length) {
    await appendFile(
      input.logFile,
      `\n===== the tree of ${input.commit} was checked at ${hit.commit}, by the same gates in this run: ` +
        `their results are reused, nothing ran\n${hit.results.map((r) => `===== ${r.name}: ${r.status}\n`).join('')}`,
    );
    const results = hit.results.map((r) => ({ ...r, reused: hit.commit }));
    for (const result of results) onResult?.(result);
    return { results, findings: [], tests: hit.tests };
  }
  const bench = await openGateBench(input);
  try {
    const runs = await runGates(gates, {
      root: bench.cwd,
      wrap: bench.wrap,
      evidence: { dir: bench.evidenceDir, seenAt: bench.seenAt },
      settle: (gate) => bench.settle(gate),
      logFile: input.logFile,
      timeoutMs: input.timeoutMs,
      env: input.env,
      signal: input.signal,
      redactor: input.redactor,
      onResult,
      heartbeat: input.heartbeat,
      heartbeatMs: input.heartbeatMs,
      onSpawn: input.onSpawn,
    });
    const results = runs.map((r) => r.result);
    const tests = runs.map((r) => r.tests);
    const whole = results.length === gates.length && !input.signal?.aborted && bench.findings.length === 0;
    if (key && whole) await cache?.put(key, { commit: input.commit, results, tests });
    return { results, findings: bench.findings, tests };
  } finally {
    await bench.close();
  }
}

/** Where a commit's gate results are kept: by its tree (src/gates/gate-cache.ts). */
async function cacheKey(place: GatePlace, gates: readonly Gate[], commit: string): Promise<string | undefined> {
  return place.cache?.key((await place.git.tree(commit)) ?? commit, gates, Boolean(place.sandbox));
}

/**
 * star-loop's own commit on top of a checked one (prd.json's `passes` set, nothing else): the gates'
 * results for the checked tree hold for it too, so the final re-check does not run them again.
 */
export async function carryGateResults(place: GatePlace, gates: readonly Gate[], from: string, to: string) {
  const [source, target] = [await cacheKey(place, gates, from), await cacheKey(place, gates, to)];
  const entry = source ? await place.cache?.get(source) : undefined;
  if (entry && target) await place.cache?.put(target, entry);
}

/**
 * Runs every gate, exactly as pinned at recon, with `sh -c` in `root`. All gates run (not
 * just up to the first failure) so the next iteration sees every problem at once.
 */
export async function runGates(gates: readonly Gate[], options: GateRunOptions): Promise<GateRun[]> {
  const results: GateRun[] = [];
  const reporter = options.evidence ? await reporterBeside(options.evidence.dir, options.env) : undefined;
  const plain = plainOutputEnv(options.env);
  for (const [index, gate] of gates.entries()) {
    if (options.signal?.aborted) break;
    await appendFile(options.logFile, `\n===== gate ${gate.name}: ${gate.command}\n`);
    const evidenceDir = options.evidence ? join(options.evidence.dir, String(index)) : undefined;
    if (evidenceDir) await mkdir(evidenceDir, { recursive: true });
    const command = {
      command: 'sh',
      // One stream, in the order it was written: a runner's stderr (cargo's target headers) and its test
      // binary's stdout would otherwise reach the log in whatever order two pipes are read.
      args: ['-c', `exec 2>&1\n${gate.command}`],
      env: {
        ...options.env,
        ...plain,
        ...(evidenceDir ? evidenceEnv(evidenceDir, { ...options.env, ...plain }, reporter) : {}),
      },
    };
    const logStart = (await stat(options.logFile).catch(() => undefined))?.size ?? 0;
    const startedAt = Date.now();
    const beat = options.heartbeat;
    const timer = beat
      ? setInterval(() => beat(gate, Date.now() - startedAt), options.heartbeatMs ?? HEARTBEAT_MS)
      : undefined;
    const run = await runProcess({
      ...(options.wrap ? options.wrap(command) : command),
      cwd: options.root,
      logFile: options.logFile,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      tailBytes: 4096,
      redactor: options.redactor,
      onSpawn: options.onSpawn,
    }).finally(() => clearInterval(timer));
    // Its log could not be written (the disk full): no verdict can be trusted; the run stops, named.
    if (run.logError) throw run.logError;
    // A gate ended by a stop has no verdict: leave it out, so the claim counts as not verified.
    if (run.aborted) break;
    const status: GateResult['status'] = run.timedOut
      ? 'timeout'
      : run.spawnError || run.exitCode === 126 || run.exitCode === 127 || run.signal
        ? 'error'
        : run.exitCode === 0
          ? 'pass'
          : 'fail';
    const result: GateResult = {
      name: gate.name,
      command: gate.command,
      status,
      exitCode: run.exitCode,
      durationMs: Math.round(run.durationMs),
      tail: run.spawnError ? `${run.spawnError}\n${run.tail}` : run.tail,
    };
    const report =
      evidenceDir && options.evidence
        ? await collectTestReport({
            dir: evidenceDir,
            output: await readFrom(options.logFile, logStart),
            tree: options.root,
            seenAt: options.evidence.seenAt,
            startedAt,
          })
        : { evidence: 'exit-code' as const };
    result.tests = { evidence: report.evidence, runner: report.runner, totals: report.totals };
    const modified = await options.settle?.(gate.name);
    if (modified) result.modified = modified;
    await appendFile(
      options.logFile,
      `===== ${gate.name}: ${status}${run.exitCode !== undefined ? ` (exit ${run.exitCode})` : ''} in ` +
        `${result.durationMs} ms\n`,
    );
    results.push({ result, tests: { name: gate.name, command: gate.command, report } });
    options.onResult?.(result);
  }
  return results;
}

/**
 * star-loop's reporter for node's test runner, copied into the evidence folder: the gates always reach it
 * there, in the sandbox too (star-loop itself may be installed where a sandbox does not look, under $HOME).
 */
async function reporterBeside(dir: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const reporter = await nodeReporterFor(env);
  if (!reporter) return undefined;
  const copy = join(dir, 'star-loop-node-reporter.mjs');
  await copyFile(reporter, copy);
  return copy;
}

/** What a gate printed: the log from where its run began (the log holds everything, redacted). */
async function readFrom(file: string, start: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    // A gate that printed gigabytes: its last 64 MiB (the runners' summaries come last).
    const from = Math.max(start, size - 64 * 1024 * 1024);
    const buffer = Buffer.alloc(Math.max(0, size - from));
    await handle.read(buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
