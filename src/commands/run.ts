import type { RunFlags } from '../config/resolve-options.js';
import { ExitCode } from '../errors.js';
import { runRecon } from '../recon/run-recon.js';
import { renderPlan } from '../report/render-plan.js';
import { printLine } from '../report/terminal-output.js';
import { listenForStop } from '../session/stop-signals.js';

/** `star-loop run`: recon, then (unless --dry-run) the run itself. */
export async function runCommand(taskWords: string[], flags: RunFlags, rawArgs: string[] = []): Promise<ExitCode> {
  const signals = listenForStop();
  try {
    const recon = await runRecon(process.cwd(), taskWords, flags);
    if (recon.options.dryRun) {
      printLine(recon.options.json ? JSON.stringify({ type: 'plan', plan: recon.plan }) : renderPlan(recon.plan));
      return ExitCode.Complete;
    }
    if (signals.asked) return stoppedBeforeStart();
    // Only a real run loads the loop, the logger and the rest: recon and --dry-run stay fast.
    const { runSession } = await import('../session/run-session.js');
    return await runSession(recon, rawArgs, signals);
  } finally {
    signals.remove();
  }
}

/** A stop asked for during recon: nothing was opened, locked or written. */
export function stoppedBeforeStart(): ExitCode {
  printLine('stopped before the run started: nothing was changed');
  return ExitCode.Stopped;
}
