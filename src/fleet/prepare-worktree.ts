import { existsSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runProcess } from '../proc/run-process.js';
import { formatFindings } from '../prompt/format-findings.js';
import { worktreeDir } from '../safety/decide-workspace.js';
import type { FleetStory } from '../state/fleet-state-schema.js';
import { prepareStarDir } from '../state/prepare-star-dir.js';
import { storyBranch } from './decide-fleet.js';
import type { FleetContext } from './fleet-context.js';
import type { FleetLedger } from './fleet-ledger.js';
import type { StoryLifecycle } from './story-lifecycle.js';

/** `--worktree-setup CMD` in a new worktree: undefined when it passed, else what went wrong. */
async function runSetup(
  command: string,
  cwd: string,
  logFile: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  await mkdir(dirname(logFile), { recursive: true });
  await appendFile(logFile, `\n===== ${cwd}: ${command}\n`);
  const run = await runProcess({ command: 'sh', args: ['-c', command], cwd, env, logFile, tailBytes: 2000 });
  if (run.exitCode === 0) return undefined;
  const how = run.spawnError ?? (run.timedOut ? 'timed out' : `exit ${run.exitCode ?? run.signal}`);
  return `${how}: ${run.tail.trim().split('\n').slice(-5).join(' ')}`;
}

/** Where a story's worker runs: its worktree, on its branch; `continued` when an attempt already ran there. */
export interface PreparedWorktree {
  dir: string;
  branch: string;
  continued: boolean;
}

/**
 * A story's worktree for its current attempt, from the integration branch's HEAD (or the one it already
 * has), its `.star/`, `--worktree-setup` once, and the hints of why an earlier attempt came back. Undefined
 * when the story cannot start: it is parked (no worktree could be made) or the fleet stops (setup failed).
 */
export async function prepareWorktree(
  ctx: FleetContext,
  ledger: FleetLedger,
  lifecycle: StoryLifecycle,
  id: string,
  story: FleetStory,
): Promise<PreparedWorktree | undefined> {
  const { state } = ledger;
  const branch = storyBranch(state.branch, id);
  // A new attempt gets a folder of its own: an earlier attempt's worktree that git would not remove stays.
  const dir = worktreeDir(ctx.root, story.attempt > 1 ? `${branch}--attempt-${story.attempt}` : branch);
  const exists = existsSync(dir);
  const continued = exists && story.worktree === dir;
  if (!continued) {
    story.runCostUsd = 0;
    story.runTokens = 0;
  }
  // Left by an earlier fleet (a parked story, say): its commits stay on the branch; its run starts anew.
  if (exists && !continued) await lifecycle.archive(id, `earlier-${state.fleetId}`, dir);
  if (!exists) {
    try {
      await mkdir(dirname(dir), { recursive: true });
      // A worktree folder someone removed by hand is still registered: git forgets it first.
      await ctx.git.pruneWorktrees();
      await ctx.git.addWorktree(dir, branch, (await ctx.git.head()) ?? 'HEAD');
    } catch (error) {
      await lifecycle.park(
        id,
        story,
        `could not make its worktree ${dir} on ${branch}: ${(error as Error).message.trim()}`,
      );
      return undefined;
    }
  }
  story.status = 'running';
  story.branch = branch;
  story.worktree = dir;
  const starDir = join(dir, '.star');
  await prepareStarDir(starDir);
  const setupDone = join(starDir, 'worktree-setup.done');
  if (ctx.setup && !existsSync(setupDone)) {
    const problem = await runSetup(ctx.setup, dir, join(ctx.paths.fleetDir, 'setup.log'), ctx.env);
    if (problem) {
      story.status = 'queued';
      ledger.stop('refused', `--worktree-setup failed in ${dir}: ${problem}`);
      return undefined;
    }
    await writeFile(setupDone, `${new Date().toISOString()}\n`);
  }
  if (story.findings.length > 0) {
    // The next agent hears why the last attempt came back (`.star/hints.md` goes to its next prompt).
    const why =
      `The fleet's merge serializer sent this story back (attempt ${story.attempt - 1}); this attempt ` +
      `starts from the current ${state.branch}`;
    await appendFile(join(starDir, 'hints.md'), `${why}:\n\n${formatFindings(story.findings)}\n`);
    story.findings = [];
  }
  return { dir, branch, continued };
}
