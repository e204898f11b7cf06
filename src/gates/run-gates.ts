import { appendFile } from 'node:fs/promises';
import { runProcess } from '../proc/run-process.js';
import type { GateResult } from '../state/state-schema.js';
import type { Gate } from './gate.js';

export interface GateRunOptions {
  root: string;
  logFile: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  redactor?: { redact: (text: string) => string; longest: number };
  onResult?: (result: GateResult) => void;
}

/**
 * Runs every gate, exactly as pinned at recon, with `sh -c` in the repository root. All gates run (not
 * just up to the first failure) so the next iteration sees every problem at once.
 */
export async function runGates(gates: readonly Gate[], options: GateRunOptions): Promise<GateResult[]> {
  const results: GateResult[] = [];
  for (const gate of gates) {
    if (options.signal?.aborted) break;
    await appendFile(options.logFile, `\n===== gate ${gate.name}: ${gate.command}\n`);
    const run = await runProcess({
      command: 'sh',
      args: ['-c', gate.command],
      cwd: options.root,
      env: { ...options.env, CI: options.env.CI ?? 'true' },
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
