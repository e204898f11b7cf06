import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Git } from '../git/git.js';
import { formatFindings } from '../prompt/format-findings.js';
import type { Finding } from '../state/finding-schema.js';
import { type FleetStory, newFleetStory } from '../state/fleet-state-schema.js';
import { decideReturn, decideWorkerOutcome, setAsideBranch } from './decide-fleet.js';
import type { FleetContext } from './fleet-context.js';
import type { FleetLedger } from './fleet-ledger.js';
import type { WorkerExit } from './run-worker.js';

/** A worker as the story lifecycle knows it when it ends. */
export interface EndedWorker {
  slot: number;
  story: string;
  attempt: number;
}

/**
 * What happens to a story between its workers and the merges: archived, retired (its worktree removed once
 * nothing in it would be lost), parked for a human, sent back to the queue for a new attempt, or handed to
 * the merge queue once its worker verified it. Every change is in the ledger.
 */
export class StoryLifecycle {
  constructor(
    private readonly ctx: FleetContext,
    private readonly ledger: FleetLedger,
  ) {}

  /** The worker's `.star/` (its run state, logs, report) moves into the fleet's before its worktree goes. */
  async archive(story: string, label: string, worktree: string): Promise<void> {
    const from = join(worktree, '.star');
    if (!existsSync(from)) return;
    const base = join(this.ctx.paths.fleetDir, 'stories', story.replace(/[^\w.-]+/g, '-'), label);
    // Never over an earlier archive (another fleet's attempt of the same story): a new name instead.
    let to = base;
    for (let n = 2; existsSync(to); n++) to = `${base}.${n}`;
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to).catch(async () => {
      await cp(from, to, { recursive: true });
      await rm(from, { recursive: true, force: true });
    });
  }

  /** Removes a story's worktree (git refuses if anything in it is uncommitted: then it stays, and we say so). */
  async retire(id: string, story: FleetStory): Promise<void> {
    if (!story.worktree) return;
    await this.archive(id, `attempt-${story.attempt}`, story.worktree);
    try {
      await this.ctx.git.removeCleanWorktree(story.worktree);
    } catch (error) {
      this.ctx.emit({
        type: 'warning',
        message: `kept the worktree ${story.worktree} of ${id}: ${(error as Error).message.trim()}`,
      });
    }
  }

  async park(id: string, story: FleetStory, detail: string): Promise<void> {
    story.status = 'parked';
    story.detail = detail;
    this.ledger.log({ story: id, attempt: story.attempt, event: 'parked', detail });
    const where = `Branch ${story.branch ?? '?'}${story.worktree ? `, worktree ${story.worktree}` : ''}.`;
    const findings = story.findings.length ? `\n\n${formatFindings(story.findings)}` : '';
    const heading = `## ${id} (fleet ${this.ledger.state.fleetId}, attempt ${story.attempt})`;
    await appendFile(this.ctx.paths.pendingForHuman, `\n${heading}\n\n${detail}\n\n${where}${findings}\n`);
    this.ctx.emit({ type: 'story.parked', story: id, attempt: story.attempt, detail });
  }

  /** Back to the queue for a new attempt on a fresh worktree from the integration branch's new HEAD. */
  async sendBack(
    id: string,
    story: FleetStory,
    why: 'merge-conflict' | 'failed-after-merge',
    findings: Finding[],
  ): Promise<void> {
    const { ctx, ledger } = this;
    story.returns += 1;
    story.findings = findings;
    const detail = findings.map((f) => f.detail).join('; ');
    ledger.log({ story: id, attempt: story.attempt, event: why, detail });
    const next = decideReturn(story, 'return', ctx.maxReturns);
    ctx.emit({ type: 'story.returned', story: id, attempt: story.attempt, why, detail, next });
    if (next === 'park')
      return this.park(id, story, `returned ${story.returns} times by the merge serializer; last: ${detail}`);
    await this.retire(id, story);
    if (story.branch) {
      // An earlier fleet may have set aside an attempt of the same number: never over it.
      const base = setAsideBranch(ledger.state.branch, id, story.attempt);
      let aside = base;
      for (let n = 2; await ctx.git.branchExists(aside); n++) aside = `${base}.${n}`;
      await ctx.git.renameBranch(story.branch, aside);
      story.setAside.push(aside);
    }
    story.status = 'queued';
    story.attempt += 1;
    story.branch = undefined;
    story.worktree = undefined;
    ledger.log({ story: id, attempt: story.attempt, event: 'requeued' });
  }

  /**
   * What a worker's end means for its story (src/fleet/decide-fleet.ts decides): verified → `onVerified`
   * (the merge queue), paused, died (replaced, or parked after --max-returns deaths), parked, or the fleet
   * stops.
   */
  async workerEnded(worker: EndedWorker, exit: WorkerExit, onVerified: (id: string) => void): Promise<void> {
    const { ctx, ledger } = this;
    const { state } = ledger;
    const id = worker.story;
    const story = state.stories[id] ?? newFleetStory();
    state.running = state.running.filter((w) => w.slot !== worker.slot);
    const outcome = decideWorkerOutcome({ ...exit, fleetStopping: ledger.stopping !== undefined });
    const detail = 'detail' in outcome ? outcome.detail : (exit.finished?.detail ?? 'verified');
    const entry = { story: id, attempt: worker.attempt, slot: worker.slot };
    ctx.emit({ type: 'worker.finished', ...entry, outcome: outcome.kind, exitCode: exit.exitCode, detail });
    story.detail = detail;
    switch (outcome.kind) {
      case 'merge':
        story.status = 'merging';
        story.verifiedCommit = story.worktree ? await new Git(story.worktree).head() : undefined;
        ledger.log({ ...entry, event: 'verified' });
        onVerified(id);
        break;
      case 'pause':
        story.status = 'queued';
        ledger.log({ ...entry, event: 'stopped', detail });
        break;
      case 'died': {
        story.deaths += 1;
        ledger.log({ ...entry, event: 'died', detail });
        const next = decideReturn(story, 'death', ctx.maxReturns);
        ctx.emit({ type: 'story.returned', story: id, attempt: worker.attempt, why: 'died', detail, next });
        if (next === 'park') await this.park(id, story, `its worker died ${story.deaths} times; last: ${detail}`);
        else story.status = 'queued';
        break;
      }
      case 'park':
        await this.park(id, story, detail);
        break;
      case 'stop-fleet':
        story.status = 'queued';
        ledger.log({ ...entry, event: 'stopped', detail });
        ledger.stop(outcome.reason, detail);
        break;
    }
    await ledger.save();
  }
}
