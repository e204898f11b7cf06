import { ExitCode } from '../errors.js';
import { renderFleetPlan } from '../fleet/fleet-plan.js';
import { type FleetFlags, reconFleet } from '../fleet/fleet-recon.js';
import { printLine } from '../report/terminal-output.js';
import { listenForStop } from '../session/stop-signals.js';
import { stoppedBeforeStart } from './run.js';

/** `star-loop fleet`: recon, then (unless --dry-run) the fleet itself. */
export async function fleetCommand(flags: FleetFlags, rawArgs: string[]): Promise<ExitCode> {
  const signals = listenForStop();
  try {
    const recon = await reconFleet(process.cwd(), flags);
    if (recon.options.dryRun) {
      printLine(recon.options.json ? JSON.stringify(recon.plan) : renderFleetPlan(recon.plan));
      return ExitCode.Complete;
    }
    if (signals.asked) return stoppedBeforeStart();
    const { runFleetSession } = await import('../session/fleet-session.js');
    return await runFleetSession(recon, flags, rawArgs, signals);
  } finally {
    signals.remove();
  }
}
