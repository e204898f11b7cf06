import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { git } from '../helpers/gitdir.js';
import { processAlive } from '../helpers/process-alive.js';
import { BIN, fakeClaude, readJson, runCli, scriptedAgent, withAgentDirs } from '../helpers/run-cli.js';

interface FleetReport {
  kind: string;
  stopReason: string;
  exitCode: number;
  stories: Array<{
    id: string;
    status: string;
    attempts: number;
    returns: number;
    setAside: string[];
    worktree?: string;
  }>;
  mergeOrder: Array<{ story: string; attempt: number; commit: string }>;
  timeline: Record<string, Array<{ at: string; event: string; attempt: number; slot?: number }>>;
}

/** A story's honest work: a module, its test, a commit and a claim. */
const implement = (name: string, body: string, call: string, expected: string) => ({
  write: {
    [`src/${name}.js`]: `export const ${name} = ${body};\n`,
    [`test/${name}.test.js`]: testFor(name, call, expected),
  },
  commit: `add ${name}`,
  claim: { complete: true },
});

async function waitFor(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const readFleet = async (repo: string) =>
  JSON.parse(await readFile(join(repo, '.star/fleet.json'), 'utf8')) as {
    running: Array<{ story: string; pid?: number; iteration?: number }>;
    spent: { iterations: number };
  };

async function passes(repo: string): Promise<Record<string, boolean>> {
  const prd = JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')) as {
    userStories: Array<{ id: string; passes: boolean }>;
  };
  return Object.fromEntries(prd.userStories.map((s) => [s.id, s.passes]));
}

describe('star-loop fleet: several loops at once, one merge at a time', () => {
  it('three independent stories with two workers: all merged into the integration branch, gates green, worktrees gone', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Subtract' },
        { id: 'US-002', title: 'Multiply' },
        { id: 'US-003', title: 'Negate' },
      ]),
    });
    const agent = await scriptedAgent(aux, {
      stories: {
        'US-001': { repeat: implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2') },
        'US-002': { repeat: implement('multiply', '(a, b) => a * b', 'multiply(2, 3)', '6') },
        'US-003': { repeat: implement('negate', '(a) => -a', 'negate(4)', '-4') },
      },
    });
    const result = await runCli(repo, ['fleet', '--prd', 'prd.json', '--workers', '2', '--agent-cmd', agent.cmd]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await git(repo, 'branch', '--show-current')).toBe('work');
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': true, 'US-003': true });
    for (const file of ['src/subtract.js', 'src/multiply.js', 'src/negate.js'])
      expect(existsSync(join(repo, file))).toBe(true);
    const report = await readJson<FleetReport>(join(repo, '.star/report.json'));
    expect(report.kind).toBe('fleet');
    expect(report.mergeOrder.map((m) => m.story).sort()).toEqual(['US-001', 'US-002', 'US-003']);
    // Each merge is a merge commit on the integration branch, in the order reported.
    const firstParents = (await git(repo, 'log', '--first-parent', '--format=%H', '-n', '3')).split('\n').reverse();
    expect(firstParents).toEqual(report.mergeOrder.map((m) => m.commit));
    // Two workers really ran at once: the first two stories started before either was merged.
    const started = Object.values(report.timeline).map((t) => t.find((e) => e.event === 'started')?.at ?? '');
    const firstMerge = Object.values(report.timeline)
      .flatMap((t) => t.filter((e) => e.event === 'merged').map((e) => e.at))
      .sort()[0];
    expect(started.filter((at) => at < (firstMerge ?? '')).length).toBe(2);
    // Merged stories' worktrees are removed; their branches stay.
    for (const s of report.stories) expect(s.worktree).toBeUndefined();
    expect((await git(repo, 'worktree', 'list')).split('\n')).toHaveLength(1);
    expect(await git(repo, 'branch', '--list', 'work--*')).toContain('work--US-002');
    // The gates hold on the result, and the workers' run state was kept.
    expect(existsSync(join(repo, '.star/fleet/stories/US-001/attempt-1/state.json'))).toBe(true);
    expect((await readFile(join(repo, '.star/report.md'), 'utf8')).includes('## Merge order')).toBe(true);
  });

  it('two stories that change the same lines: the second merge conflicts, goes back to the queue with the conflict as findings, and then succeeds', async () => {
    const { repo, aux } = await calcRepo({
      'src/version.js': "export const version = 'base';\n",
      'prd.json': prdText([
        { id: 'US-001', title: 'Version one' },
        { id: 'US-002', title: 'Version two' },
      ]),
    });
    const bump = (who: string) => ({
      write: { 'src/version.js': `export const version = '${who}';\n` },
      commit: `version ${who}`,
      claim: { complete: true },
    });
    const agent = await scriptedAgent(aux, {
      stories: { 'US-001': { repeat: bump('one') }, 'US-002': { repeat: bump('two') } },
    });
    const result = await runCli(repo, ['fleet', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': true });
    const report = await readJson<FleetReport>(join(repo, '.star/report.json'));
    const [first, second] = report.mergeOrder;
    expect(first?.attempt).toBe(1);
    expect(second?.attempt).toBe(2);
    const events = report.timeline[second?.story ?? '']?.map((e) => `${e.attempt}:${e.event}`);
    expect(events).toEqual([
      '1:started',
      '1:iteration',
      '1:verified',
      '1:merge-conflict',
      '2:requeued',
      '2:started',
      '2:iteration',
      '2:verified',
      '2:merged',
    ]);
    // The redo started from the integration branch with the first story in it, and was told why.
    const calls = await agent.calls();
    const redo = calls.filter(
      (c) => (c.env as Record<string, string>).STAR_STORY_ID === second?.story && c.role === 'implementer',
    );
    expect(redo).toHaveLength(2);
    const hints = await readFile(join(repo, `.star/fleet/stories/${second?.story}/attempt-2/hints/0001.md`), 'utf8');
    expect(hints).toContain('conflicts in src/version.js');
    // The conflicted attempt's branch is kept, not deleted.
    const kept = report.stories.find((s) => s.id === second?.story)?.setAside ?? [];
    expect(kept).toEqual([`work--${second?.story}--attempt-1`]);
    expect(await git(repo, 'rev-parse', '--verify', kept[0] ?? '')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('a story that keeps failing is parked without holding the others up; dependsOn order is kept', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Subtract' },
        { id: 'US-002', title: 'Broken', priority: 2 },
        { id: 'US-003', title: 'Multiply', priority: 3, dependsOn: ['US-001'] },
      ]),
    });
    const agent = await scriptedAgent(aux, {
      stories: {
        'US-001': { repeat: { ...implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2'), sleepMs: 500 } },
        // Claims done with a test that fails: the gates reject it every time.
        'US-002': { repeat: implement('broken', '() => 1', 'broken()', '2') },
        'US-003': { repeat: implement('multiply', '(a, b) => a * b', 'multiply(2, 3)', '6') },
      },
    });
    // As a GitHub Actions step: the report joins the job summary, parked stories become annotations.
    const summary = join(aux, 'summary.md');
    const result = await runCli(repo, ['fleet', '--workers', '2', '--park-after', '2', '--agent-cmd', agent.cmd], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.exitCode).toBe(4);
    expect(result.stdout).toContain('US-002 parked for a human');
    expect(result.stdout).toContain('::warning title=star-loop fleet parked US-002::');
    const jobSummary = await readFile(summary, 'utf8');
    expect(jobSummary).toContain('# star-loop fleet');
    expect(jobSummary.match(/# star-loop fleet/g)).toHaveLength(1);
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': false, 'US-003': true });
    const report = await readJson<FleetReport>(join(repo, '.star/report.json'));
    expect(report.stopReason).toBe('parked');
    expect(report.mergeOrder.map((m) => m.story)).toEqual(['US-001', 'US-003']);
    // US-003 waited for US-001's merge, then ran.
    const merged1 = report.timeline['US-001']?.find((e) => e.event === 'merged')?.at ?? '';
    const started3 = report.timeline['US-003']?.find((e) => e.event === 'started')?.at ?? '';
    expect(started3 > merged1).toBe(true);
    expect(await readFile(join(repo, '.star/pending_for_human.md'), 'utf8')).toContain('## US-002');
    // The parked story's branch and worktree are left for the human.
    const parked = report.stories.find((s) => s.id === 'US-002');
    expect(parked?.status).toBe('parked');
    expect(parked?.worktree && existsSync(parked.worktree)).toBe(true);

    // After a human's look, a new fleet takes the parked story up again on its branch, with a fresh run.
    const fixed = await scriptedAgent(
      aux,
      {
        stories: {
          'US-002': {
            repeat: {
              write: { 'src/broken.js': 'export const broken = () => 2;\n' },
              commit: 'fix broken',
              claim: { complete: true },
            },
          },
        },
      },
      'fixed',
    );
    const retry = await runCli(repo, ['fleet', '--agent-cmd', fixed.cmd]);
    expect(retry.exitCode).toBe(0);
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': true, 'US-003': true });
    // The parked run's state was kept beside the new one's, not overwritten.
    const kept = (await readdir(join(repo, '.star/fleet/stories/US-002'))).sort();
    expect(kept).toHaveLength(2);
    expect(kept[0]).toBe('attempt-1');
    expect(kept[1]).toMatch(/^earlier-/);
    // The parked attempt's work and the fix are both in the history (star-loop committed each from the files).
    const history = await git(repo, 'log', '-p', '--format=%s', 'work', '--', 'src/broken.js');
    expect(history).toContain('+export const broken = () => 1;');
    expect(history).toContain('+export const broken = () => 2;');
  });

  it('the budgets are the fleet’s: --max-iterations 3 with two workers is three iterations in all', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'One' },
        { id: 'US-002', title: 'Two' },
      ]),
    });
    // Agents that work but never finish.
    const agent = await scriptedAgent(aux, { repeat: { append: { 'notes.txt': 'more\n' }, commit: 'more {{call}}' } });
    const result = await runCli(repo, [
      'fleet',
      '--max-iterations',
      '3',
      '--verify',
      'off',
      '--stall-after',
      '10',
      '--agent-cmd',
      agent.cmd,
    ]);
    expect(result.exitCode).toBe(3);
    expect((await agent.calls()).filter((c) => c.role === 'implementer')).toHaveLength(3);
    expect((await readFleet(repo)).spent.iterations).toBe(3);
    expect((await readJson<FleetReport>(join(repo, '.star/report.json'))).stopReason).toBe('max-iterations');
  });

  it('--max-cost is the fleet’s: iterations under way count, so two workers stay within it (exit 3)', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'One' },
        { id: 'US-002', title: 'Two' },
      ]),
    });
    // Claude Code's stream-json, $0.50 an iteration, work that never finishes.
    const agent = await scriptedAgent(aux, {
      format: 'claude-stream-json',
      repeat: {
        append: { 'notes-{{call}}.txt': 'step\n' },
        commit: 'step {{call}}',
        final: 'Still working.',
        costUsd: 0.5,
        sleepMs: 300,
      },
    });
    const result = await runCli(repo, ['fleet', '--max-cost', '1.6', '--stall-after', '10'], {
      PATH: await fakeClaude(aux, agent.file),
    });
    expect(result.exitCode).toBe(3);
    const fleet = await readJson<{ spent: { costUsd: number; iterations: number } }>(join(repo, '.star/fleet.json'));
    expect(fleet.spent).toMatchObject({ costUsd: 1.5, iterations: 3 });
    expect((await readJson<FleetReport>(join(repo, '.star/report.json'))).stopReason).toBe('max-cost');
  });

  it('kill -9 of the fleet, then resume: the workers stop after their iteration, and the fleet finishes with nothing lost', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Subtract' },
        { id: 'US-002', title: 'Multiply' },
        { id: 'US-003', title: 'Negate' },
      ]),
    });
    const slow = (step: { commit: string }) => ({
      steps: [
        { append: { [`notes-${step.commit.replace(' ', '-')}.txt`]: 'started\n' }, commit: 'start', sleepMs: 3000 },
      ],
      repeat: step,
    });
    const agent = await scriptedAgent(aux, {
      stories: {
        'US-001': slow(implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2')),
        'US-002': slow(implement('multiply', '(a, b) => a * b', 'multiply(2, 3)', '6')),
        'US-003': slow(implement('negate', '(a) => -a', 'negate(4)', '-4')),
      },
    });
    const fleet = execa(process.execPath, [BIN, ...withAgentDirs(['fleet', '--agent-cmd', agent.cmd])], {
      cwd: repo,
      reject: false,
    });
    await waitFor(
      async () =>
        ((await readFleet(repo).catch(() => undefined))?.running ?? []).filter((w) => w.iteration).length === 2,
    );
    const workers = (await readFleet(repo)).running.map((w) => w.pid ?? 0);
    fleet.kill('SIGKILL');
    await fleet;
    const status = JSON.parse((await runCli(repo, ['status', '--json'])).stdout) as {
      kind: string;
      state: string;
      workers: unknown[];
    };
    expect(status).toMatchObject({ kind: 'fleet', state: 'crashed' });
    expect(status.workers).toHaveLength(2);
    // Orphaned workers hear that the fleet is gone and stop after their iteration; the resumed fleet waits
    // for them (it would hang if they did not stop) before it continues their stories.
    expect(workers.some((pid) => processAlive(pid))).toBe(true);
    const resumed = await runCli(repo, ['resume']);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain("waiting for the previous fleet's worker");
    expect(workers.every((pid) => !processAlive(pid))).toBe(true);
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': true, 'US-003': true });
    const report = await readJson<FleetReport>(join(repo, '.star/report.json'));
    expect(report.mergeOrder.map((m) => m.story).sort()).toEqual(['US-001', 'US-002', 'US-003']);
    // The interrupted stories continued in their worktrees: their first iteration's work is in the result.
    const tree = (await git(repo, 'ls-tree', '--name-only', 'HEAD')).split('\n');
    expect(tree.filter((f) => /^notes-.*\.txt$/.test(f))).toHaveLength(3);
    const resumedStories = Object.entries(report.timeline).filter(([, t]) => t.some((e) => e.event === 'resumed'));
    expect(resumedStories).toHaveLength(2);
    for (const [, t] of resumedStories) expect(t.some((e) => e.event === 'died')).toBe(false);
  }, 90_000);

  it('a gate that fails only after the merge sends the story back; the redo from the new integration HEAD is merged', async () => {
    const countTest =
      "import assert from 'node:assert/strict';\nimport { readdirSync } from 'node:fs';\nimport { test } from 'node:test';\n\ntest('src holds two modules', () => assert.equal(readdirSync('src').length, 2));\n";
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Subtract, and keep src small' },
        { id: 'US-002', title: 'Multiply' },
      ]),
    });
    const agent = await scriptedAgent(aux, {
      stories: {
        'US-001': {
          repeat: {
            ...implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2'),
            write: {
              ...implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2').write,
              'test/count.test.js': countTest,
            },
          },
        },
        // Passes alone; merged after US-001 it breaks US-001's test. The redo puts the module elsewhere.
        'US-002': {
          steps: [{ ...implement('multiply', '(a, b) => a * b', 'multiply(2, 3)', '6'), sleepMs: 3000 }],
          repeat: {
            write: {
              'lib/multiply.js': 'export const multiply = (a, b) => a * b;\n',
              'test/multiply.test.js': testFor('multiply', 'multiply(2, 3)', '6').replace('../src/', '../lib/'),
            },
            commit: 'multiply in lib',
            claim: { complete: true },
          },
        },
      },
    });
    const result = await runCli(repo, ['fleet', '--agent-cmd', agent.cmd]);
    expect(result.exitCode).toBe(0);
    const report = await readJson<FleetReport>(join(repo, '.star/report.json'));
    expect(report.mergeOrder.map((m) => `${m.story}:${m.attempt}`)).toEqual(['US-001:1', 'US-002:2']);
    expect(report.timeline['US-002']?.map((e) => e.event)).toContain('failed-after-merge');
    const hints = await readFile(join(repo, '.star/fleet/stories/US-002/attempt-2/hints/0001.md'), 'utf8');
    expect(hints).toContain('after merging into work');
    expect(hints).toContain('count.test.js');
    // The integration branch never held the failing merge.
    expect(existsSync(join(repo, 'src/multiply.js'))).toBe(false);
    expect(existsSync(join(repo, 'lib/multiply.js'))).toBe(true);
    const subjects = (await git(repo, 'log', '--first-parent', '--format=%s')).split('\n');
    expect(subjects.filter((s) => s.startsWith('star-loop fleet: merge'))).toHaveLength(2);
  });

  it('prd.json written one story per line: the passes of two stories never conflict (the fleet owns passes)', async () => {
    const line = (id: string, title: string) =>
      JSON.stringify({
        id,
        title,
        description: title,
        acceptanceCriteria: ['Tests pass'],
        priority: 1,
        passes: false,
        notes: '',
      });
    const { repo, aux } = await calcRepo({
      'prd.json': `{"project": "calc", "branchName": "work", "userStories": [\n${line('US-001', 'Subtract')},\n${line('US-002', 'Multiply')}\n]}\n`,
    });
    const agent = await scriptedAgent(aux, {
      stories: {
        'US-001': { repeat: implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2') },
        'US-002': { repeat: implement('multiply', '(a, b) => a * b', 'multiply(2, 3)', '6') },
      },
    });
    const result = await runCli(repo, ['fleet', '--agent-cmd', agent.cmd, '--json']);
    expect(result.exitCode).toBe(0);
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': true });
    const report = await readJson<FleetReport>(join(repo, '.star/report.json'));
    expect(report.mergeOrder.map((m) => m.attempt)).toEqual([1, 1]);
    // Merged as they are, the two stories' branches would conflict in prd.json (adjacent lines).
    const [one, two] = await Promise.all(report.mergeOrder.map((m) => git(repo, 'rev-parse', `${m.commit}^2`)));
    const plain = await execa('git', ['merge-tree', '--write-tree', '--name-only', one ?? '', two ?? ''], {
      cwd: repo,
      reject: false,
    });
    expect(plain.exitCode).toBe(1);
    expect(plain.stdout.split('\n')[1]).toBe('prd.json');
    // --json: one fleet event per line, worker events wrapped, each valid by `star-loop schema fleet-events`.
    const events = result.stdout.split('\n').map((l) => JSON.parse(l) as { type: string; event?: { type: string } });
    expect(events[0]?.type).toBe('fleet.started');
    expect(events.at(-1)?.type).toBe('fleet.finished');
    expect(events.some((e) => e.type === 'worker.event' && e.event?.type === 'claim.verdict')).toBe(true);
    const schema = JSON.parse((await runCli(repo, ['schema', 'fleet-events'])).stdout) as object;
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    for (const event of events) expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(
      validate({ type: 'worker.event', time: 'now', slot: 1, story: 'A', attempt: 1, event: { type: 'run.finished' } }),
    ).toBe(false);
  });

  it('a worker killed mid-iteration is replaced: its story continues in the same worktree and is merged', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]) });
    const finisher = await scriptedAgent(aux, {
      repeat: implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2'),
    });
    // The first agent run leaves uncommitted work and hangs; the worker running it is killed.
    const marker = join(aux, 'first-run');
    const cmd = `if [ ! -f ${marker} ]; then touch ${marker}; echo begun > notes.txt; exec sleep 30; else ${finisher.cmd}; fi`;
    const fleet = execa(process.execPath, [BIN, ...withAgentDirs(['fleet', '--agent-cmd', cmd])], {
      cwd: repo,
      reject: false,
    });
    await waitFor(
      async () =>
        existsSync(marker) &&
        ((await readFleet(repo).catch(() => undefined))?.running ?? []).some((w) => w.iteration && w.pid),
    );
    const [worker] = (await readFleet(repo)).running;
    process.kill(worker?.pid ?? 0, 'SIGKILL');
    const result = await fleet;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('US-001 attempt 1: died');
    const report = await readJson<FleetReport & { stories: Array<{ deaths: number }> }>(
      join(repo, '.star/report.json'),
    );
    const events = report.timeline['US-001']?.map((e) => e.event) ?? [];
    expect(events.slice(0, 3)).toEqual(['started', 'died', 'resumed']);
    expect(events.slice(-2)).toEqual(['verified', 'merged']);
    expect(report.stories[0]).toMatchObject({ status: 'merged', deaths: 1 });
    // The killed iteration's uncommitted work was committed by the worker that continued, not lost.
    expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe('begun\n');
    expect(await git(repo, 'log', '--format=%s')).toContain('uncommitted work left by an interrupted run');
  }, 60_000);

  it('stop pauses the fleet (exit 6) and resume finishes it; bad input is refused with the fix', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Subtract' },
        { id: 'US-002', title: 'Multiply' },
      ]),
    });
    const plan = await runCli(repo, ['fleet', '--dry-run', '--workers', '3', '--agent-cmd', 'true']);
    expect(plan.exitCode).toBe(0);
    expect(plan.stdout).toContain('ready now, in order: US-001, US-002');
    const planJson = JSON.parse(
      (await runCli(repo, ['fleet', '--dry-run', '--json', '--agent-cmd', 'true'])).stdout,
    ) as object;
    expect(planJson).toMatchObject({
      type: 'fleet-plan',
      fleet: 'new',
      branch: 'work',
      workers: 2,
      ready: ['US-001', 'US-002'],
      waiting: [],
    });
    expect(existsSync(join(repo, '.star'))).toBe(false);
    expect((await runCli(repo, ['fleet', '--workers', '0', '--agent-cmd', 'true'])).stderr).toContain(
      '--workers: expected a whole number',
    );

    const agent = await scriptedAgent(aux, {
      stories: {
        'US-001': {
          steps: [{ sleepMs: 2500, append: { 'a.txt': 'a\n' }, commit: 'a' }],
          repeat: implement('subtract', '(a, b) => a - b', 'subtract(5, 3)', '2'),
        },
        'US-002': {
          steps: [{ sleepMs: 2500, append: { 'b.txt': 'b\n' }, commit: 'b' }],
          repeat: implement('multiply', '(a, b) => a * b', 'multiply(2, 3)', '6'),
        },
      },
    });
    const fleet = execa(process.execPath, [BIN, ...withAgentDirs(['fleet', '--agent-cmd', agent.cmd])], {
      cwd: repo,
      reject: false,
    });
    await waitFor(
      async () =>
        ((await readFleet(repo).catch(() => undefined))?.running ?? []).filter((w) => w.iteration).length === 2,
    );
    expect((await runCli(repo, ['stop'])).exitCode).toBe(0);
    const stopped = await fleet;
    expect(stopped.exitCode).toBe(6);
    const status = JSON.parse((await runCli(repo, ['status', '--json'])).stdout) as {
      state: string;
      stories: { queued: string[] };
    };
    expect(status.state).toBe('paused');
    expect(status.stories.queued.sort()).toEqual(['US-001', 'US-002']);
    const resumed = await runCli(repo, ['resume']);
    expect(resumed.exitCode).toBe(0);
    expect(await passes(repo)).toEqual({ 'US-001': true, 'US-002': true });
    // The first iteration of each story (finished before the stop) is in the result.
    expect(existsSync(join(repo, 'a.txt')) && existsSync(join(repo, 'b.txt'))).toBe(true);
  }, 60_000);

  it('stop --now ends every worker’s agent at once; the fleet pauses (exit 6)', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'One' },
        { id: 'US-002', title: 'Two' },
      ]),
    });
    const pids = join(aux, 'pids');
    // The agents' PIDs as the host sees them: without the sandbox (in it, a worker's end ends its sandbox).
    const args = ['fleet', '--sandbox', 'off', '--agent-cmd', `echo $$ >> ${pids}; exec sleep 60`];
    const fleet = execa(process.execPath, [BIN, ...args], {
      cwd: repo,
      reject: false,
    });
    await waitFor(async () => (await readFile(pids, 'utf8').catch(() => '')).trim().split('\n').length === 2);
    const started = Date.now();
    expect((await runCli(repo, ['stop', '--now'])).exitCode).toBe(0);
    const stopped = await fleet;
    expect(stopped.exitCode).toBe(6);
    expect(Date.now() - started).toBeLessThan(30_000);
    const agents = (await readFile(pids, 'utf8')).trim().split('\n').map(Number);
    await waitFor(async () => agents.every((pid) => !processAlive(pid)), 10_000);
    const status = JSON.parse((await runCli(repo, ['status', '--json'])).stdout) as {
      state: string;
      workers: unknown[];
    };
    expect(status).toMatchObject({ state: 'paused', workers: [] });
  }, 60_000);

  it('refuses a PRD without branchName and a cost budget it cannot measure (exit 2), and a prd.json that is not committed (exit 4)', async () => {
    const noBranch = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'A' }]).replace('"branchName": "work",', ''),
    });
    const missing = await runCli(noBranch.repo, ['fleet', '--agent-cmd', 'true']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('prd.json: branchName is missing');
    expect(missing.stderr).toContain('fix: set "branchName" in prd.json');

    const { repo } = await calcRepo();
    await writeFile(join(repo, 'prd.json'), prdText([{ id: 'US-001', title: 'A' }]));
    const blindBudget = await runCli(repo, ['fleet', '--agent-cmd', 'true', '--max-cost', '5']);
    expect(blindBudget.exitCode).toBe(2);
    expect(blindBudget.stderr).toContain('--max-cost could never stop the run');
    const dirty = await runCli(repo, ['fleet', '--agent-cmd', 'true']);
    expect(dirty.exitCode).toBe(4);
    expect(dirty.stderr).toContain('uncommitted change');
    expect(dirty.stderr).toContain('the fleet merges into this checkout');
    expect(await git(repo, 'status', '--porcelain')).toBe('?? prd.json');
  });
});
