import { join } from 'node:path';
import { runProcess } from '../proc/run-process.js';
import type { StarPaths } from '../state/star-paths.js';

/**
 * `--on-finish "CMD"`: a command run when the loop stops (notify-send, a chat webhook, mail), with the stop
 * reason, exit code and report paths in its environment. Its failure is reported, never the run's.
 */
export async function runOnFinish(
  input: {
    /** The command; nothing runs without one. */
    command?: string;
    root: string;
    paths: StarPaths;
    env: NodeJS.ProcessEnv;
    runId: string;
    stopReason: string;
    exitCode: number;
  },
  warn: (message: string) => void,
): Promise<void> {
  if (!input.command) return;
  const result = await runProcess({
    command: 'sh',
    args: ['-c', input.command],
    cwd: input.root,
    env: {
      ...input.env,
      STAR_RUN_ID: input.runId,
      STAR_STOP_REASON: input.stopReason,
      STAR_EXIT_CODE: String(input.exitCode),
      STAR_REPORT: input.paths.reportMd,
      STAR_REPORT_JSON: input.paths.reportJson,
    },
    logFile: join(input.paths.dir, 'on-finish.log'),
    timeoutMs: 120_000,
  });
  if (result.exitCode === 0) return;
  const how = result.timedOut ? 'timed out' : `failed (exit ${result.exitCode ?? result.signal})`;
  warn(`--on-finish command ${how}; see .star/on-finish.log`);
}
