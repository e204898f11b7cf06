import { stat } from 'node:fs/promises';
import { starPaths } from './star-paths.js';

/**
 * Whether a fleet, not a single run, was the last active here (a fleet's workers keep their state in their worktrees).
 */
export async function latestIsFleet(root: string): Promise<boolean> {
  const paths = starPaths(root);
  const [run, fleet] = await Promise.all([
    stat(paths.state).catch(() => undefined),
    stat(paths.fleet).catch(() => undefined),
  ]);
  return fleet !== undefined && (run === undefined || fleet.mtimeMs >= run.mtimeMs);
}
