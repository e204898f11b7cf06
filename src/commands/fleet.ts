import { ExitCode } from '../errors.js';
import { renderFleetPlan } from '../fleet/fleet-plan.js';
import { type FleetFlags, reconFleet } from '../fleet/fleet-recon.js';
import { printLine } from '../report/terminal-output.js';

/** `star-loop fleet`: recon, then (unless --dry-run) the fleet itself. */
export async function fleetCommand(flags: FleetFlags, rawArgs: string[]): Promise<ExitCode> {
  const recon = await reconFleet(process.cwd(), flags);
  if (recon.options.dryRun) {
    printLine(recon.options.json ? JSON.stringify(recon.plan) : renderFleetPlan(recon.plan));
    return ExitCode.Complete;
  }
  const { runFleetSession } = await import('../session/fleet-session.js');
  return runFleetSession(recon, flags, rawArgs);
}
