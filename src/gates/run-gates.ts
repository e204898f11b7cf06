import { appendFile } from 'node:fs/promises';
import { runProcess } from '../proc/run-process.js';
import type { ProcessWrap } from '../sandbox/sandbox.js';
import type { Finding } from '../state/finding-schema.js';
import type { GateResult } from '../state/state-schema.js';
import type { Gate } from './gate.js';
import { type GateBenchInput, openGateBench } from './gate-bench.js';

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
}

/**
 * The gates on one commit, in a gate bench of their own (src/gates/gate-bench.ts), removed after; with
 * what the bench found that makes their result untrustworthy.
 */
export async function runGatesOn(
  gates: readonly Gate[],
  input: GateBenchInput,
  onResult?: (result: GateResult) => void,
): Promise<{ results: GateResult[]; findings: Finding[] }> {
  const bench = await openGateBench(input);
  try {
    const results = await runGates(gates, {
      root: bench.cwd,
      wrap: bench.wrap,
      logFile: input.logFile,
      timeoutMs: input.timeoutMs,
      env: input.env,
      signal: input.signal,
      redactor: input.redactor,
      onResult,
    });
    return { results, findings: bench.findings };
  } finally {
    await bench.close();
  }
}

/**
 * Runs every gate, exactly as pinned at recon, with `sh -c` in `root`. All gates run (not
 * just up to the first failure) so the next iteration sees every problem at once.
 */
export async function runGates(gates: readonly Gate[], options: GateRunOptions): Promise<GateResult[]> {
  const results: GateResult[] = [];
  for (const gate of gates) {
    if (options.signal?.aborted) break;
    await appendFile(options.logFile, `\n===== gate ${gate.name}: ${gate.command}\n`);
    const command = {
      command: 'sh',
      args: ['-c', gate.command],
      env: { ...options.env, CI: options.env.CI ?? 'true' },
    };
    const run = await runProcess({
      ...(options.wrap ? options.wrap(command) : command),
      cwd: options.root,
      logFile: options.logFile,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      tailBytes: 4096,
      redactor: options.redactor,
    });
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
    await appendFile(
      options.logFile,
      `===== ${gate.name}: ${status}${run.exitCode !== undefined ? ` (exit ${run.exitCode})` : ''} in ` +
        `${result.durationMs} ms\n`,
    );
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}
