import { join } from 'node:path';
import { findDependencyDirs } from '../gates/dependencies.js';
import { Git } from '../git/git.js';
import type { Prd } from '../prd/prd-schema.js';
import type { FleetContext } from './fleet-context.js';
import type { FleetLedger } from './fleet-ledger.js';
import { mergeStory } from './merge-story.js';
import type { StoryLifecycle } from './story-lifecycle.js';

/**
 * The merge serializer's queue: verified stories, merged one at a time in the order they were verified
 * (src/fleet/merge-story.ts makes each merge). A merge that cannot be made for a reason outside the story
 * (the root left the branch, local changes in the way) blocks the queue and pauses the fleet; `resume`
 * tries again.
 */
export class MergeQueue {
  private readonly waiting: string[];
  private blocked = false;

  constructor(
    private readonly ctx: FleetContext,
    private readonly ledger: FleetLedger,
    private readonly lifecycle: StoryLifecycle,
  ) {
    // Stories verified by an earlier fleet that stopped before merging them.
    this.waiting = Object.entries(ledger.state.stories)
      .filter(([, s]) => s.status === 'merging')
      .map(([id]) => id);
  }

  add(id: string): void {
    this.waiting.push(id);
  }

  /** A merge can be made now: one waits, nothing blocks, and the fleet is not stopping at once or for safety. */
  ready(): boolean {
    return (
      this.waiting.length > 0 && !this.blocked && !this.ctx.signal.aborted && this.ledger.stopping?.reason !== 'safety'
    );
  }

  /** Merges while it can, in order; `readPrd` reads the integration branch's prd.json before each. */
  async drain(readPrd: () => Promise<Prd>): Promise<void> {
    while (this.ready()) {
      const id = this.waiting[0];
      if (!id || (await this.mergeOne(id, await readPrd())) === 'blocked') break;
    }
  }

  private async mergeOne(id: string, prd: Prd): Promise<string | undefined> {
    const { ctx, ledger } = this;
    const { state } = ledger;
    const story = state.stories[id];
    if (!story?.worktree || !story.branch) {
      this.waiting.splice(this.waiting.indexOf(id), 1);
      if (story) story.status = 'queued';
      return undefined;
    }
    ctx.emit({ type: 'merge.started', story: id, attempt: story.attempt });
    const result = await mergeStory({
      root: ctx.git,
      tree: new Git(story.worktree),
      integration: state.branch,
      storyBranch: story.branch,
      story: id,
      title: prd.userStories.find((s) => s.id === id)?.title ?? id,
      attempt: story.attempt,
      prd: state.prd,
      gates: ctx.gates,
      baseline: state.baseline?.gates ?? [],
      baselineCommit: state.baseline?.commit,
      // The gates run on a clean copy of the merge, with the story worktree's dependencies (its set-up's).
      place: {
        git: ctx.git,
        dependencyRoot: story.worktree,
        dependencyDirs: await findDependencyDirs(story.worktree),
        sandbox: ctx.sandbox,
        hosts: ctx.gateHosts,
        env: ctx.env,
        timeoutMs: ctx.options.gateTimeoutMs,
        signal: ctx.signal,
        redactor: ctx.redactor,
        cache: ctx.gateCache,
        heartbeat: ctx.heartbeat,
      },
      workDir: ctx.paths.fleetDir,
      logFile: join(ctx.paths.fleetDir, 'merge-gates.log'),
    });
    if (result.kind === 'blocked') {
      // Nothing merged, nothing wrong with the story: the fleet pauses and `resume` tries again.
      this.blocked = true;
      ledger.stop('refused', result.detail);
      return 'blocked';
    }
    this.waiting.splice(this.waiting.indexOf(id), 1);
    if (result.kind === 'merged') {
      story.status = 'merged';
      story.mergeCommit = result.commit;
      state.merges.push({ story: id, commit: result.commit, at: new Date().toISOString(), attempt: story.attempt });
      ledger.log({ story: id, attempt: story.attempt, event: 'merged', detail: result.commit });
      ctx.emit({
        type: 'story.merged',
        story: id,
        attempt: story.attempt,
        commit: result.commit,
        order: state.merges.length,
      });
      await this.lifecycle.retire(id, story);
      story.worktree = undefined;
    } else {
      await this.lifecycle.sendBack(
        id,
        story,
        result.kind === 'conflict' ? 'merge-conflict' : result.kind,
        result.findings,
      );
    }
    await ledger.save();
    return result.kind;
  }
}
