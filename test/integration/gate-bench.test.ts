import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findDependencyDirs, fingerprintBins } from '../../src/gates/dependencies.js';
import type { GatePlace } from '../../src/gates/gate-bench.js';
import { runGatesOn } from '../../src/gates/run-gates.js';
import { Git } from '../../src/git/git.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';
import { git, gitdir } from '../helpers/gitdir.js';
import { sandboxIt, sandboxSupport } from '../helpers/needs-sandbox.js';

/**
 * A project with one local dependency (`file:vendor/dep`, so npm needs no registry), installed, with a
 * marker only the install made before the run has; an untracked and an ignored file beside it.
 */
async function project() {
  const repo = await gitdir({
    '.gitignore': 'node_modules/\nsecret.env\n',
    'package.json': `${JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { dep: 'file:vendor/dep' } })}\n`,
    'vendor/dep/package.json': `${JSON.stringify({ name: 'dep', version: '1.0.0', main: 'index.js' })}\n`,
    'vendor/dep/index.js': 'module.exports = 1;\n',
  });
  await execa('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent'], { cwd: repo });
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', 'lockfile');
  await writeFile(join(repo, 'node_modules/.trusted'), 'installed before the run\n');
  await writeFile(join(repo, 'untracked.txt'), 'not committed\n');
  await writeFile(join(repo, 'secret.env'), 'ignored\n');
  return { repo, head: await git(repo, 'rev-parse', 'HEAD') };
}

function place(repo: string, sandbox?: Sandbox, trustedBins?: Map<string, string>): GatePlace {
  return {
    git: new Git(repo),
    dependencyRoot: repo,
    dependencyDirs: ['node_modules'],
    sandbox,
    hosts: [],
    trustedBins,
    env: process.env,
    timeoutMs: 60_000,
  };
}

function sandboxFor(repo: string): Sandbox {
  return new Sandbox({
    bwrap: sandboxSupport.bwrap ?? 'bwrap',
    root: repo,
    gitDir: join(repo, '.git'),
    keepReadOnly: [],
    network: 'filtered',
    allowHosts: [],
    allowWrite: [],
    dependencyDirs: ['node_modules'],
    env: process.env,
  });
}

const CLEAN = [
  'test -f package.json',
  'test ! -e untracked.txt',
  'test ! -e secret.env',
  'node -e "require(\'dep\')"',
].join(' && ');
const gate = (name: string, command: string) => ({ name, command, kind: 'test' as const, source: 'test' });

async function statusOf(repo: string, p: GatePlace, command: string, installedAt?: string) {
  const head = await git(repo, 'rev-parse', 'HEAD');
  const log = join(await mkdtemp(join(tmpdir(), 'star-loop-gates-log-')), 'gates.log');
  const { results, findings } = await runGatesOn([gate('g', command)], {
    ...p,
    commit: head,
    installedAt,
    logFile: log,
  });
  return { status: results[0]?.status, findings };
}

describe('the gate bench: a clean copy of the commit, with the trusted dependencies', () => {
  for (const mode of ['sandbox', 'off'] as const) {
    const test = mode === 'sandbox' ? sandboxIt : it;
    test(`only committed files, with node_modules as installed before the run (${mode})`, async () => {
      const { repo } = await project();
      const p = place(repo, mode === 'sandbox' ? sandboxFor(repo) : undefined);
      expect(await statusOf(repo, p, `${CLEAN} && test -f node_modules/.trusted`)).toEqual({
        status: 'pass',
        findings: [],
      });
      // The work tree is left as it was.
      expect((await git(repo, 'status', '--porcelain')).split('\n').sort()).toEqual(['?? untracked.txt']);
    });

    test(`a changed lockfile: the dependencies are installed afresh in the copy (${mode})`, async () => {
      const { repo, head } = await project();
      await writeFile(
        join(repo, 'vendor/dep/package.json'),
        `${JSON.stringify({ name: 'dep', version: '1.0.1', main: 'index.js' })}\n`,
      );
      await execa('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent'], { cwd: repo });
      await git(repo, 'add', 'vendor', 'package-lock.json');
      await git(repo, 'commit', '-qm', 'dep 1.0.1');
      const p = place(repo, mode === 'sandbox' ? sandboxFor(repo) : undefined);
      // Fresh: no marker from the install before the run, and the new version.
      const fresh = `${CLEAN} && test ! -e node_modules/.trusted && grep -q 1.0.1 node_modules/dep/package.json`;
      expect((await statusOf(repo, p, fresh, head)).status).toBe('pass');
    });
  }

  it('without a sandbox, a dependency executable changed since the start is a finding', async () => {
    const { repo } = await project();
    await mkdir(join(repo, 'node_modules/.bin'), { recursive: true });
    const trusted = await fingerprintBins(repo, ['node_modules']);
    await writeFile(join(repo, 'node_modules/.bin/node'), '#!/bin/sh\nexit 0\n');
    const { findings } = await statusOf(repo, place(repo, undefined, trusted), 'true');
    expect(findings).toEqual([expect.objectContaining({ rule: 'gate-changed', file: 'node_modules/.bin/node' })]);
  });

  sandboxIt('in the sandbox, the gates cannot write the trusted dependencies or reach the network', async () => {
    const { repo } = await project();
    const p = place(repo, sandboxFor(repo));
    const write = await statusOf(repo, p, 'touch node_modules/.written');
    expect(write.status).toBe('fail');
    const net = await statusOf(
      repo,
      p,
      `node -e "require('net').connect(443, '1.1.1.1').on('error', () => process.exit(1))"`,
    );
    expect(net.status).toBe('fail');
  });

  it('finds the dependency folders of a monorepo, not those inside another', async () => {
    const repo = await gitdir({ 'packages/a/package.json': '{}\n', 'packages/b/package.json': '{}\n' });
    for (const dir of [
      'node_modules/x/node_modules',
      'packages/a/node_modules',
      'packages/b/.venv',
      '.git/x/node_modules',
    ])
      await mkdir(join(repo, dir), { recursive: true });
    expect(await findDependencyDirs(repo)).toEqual(['node_modules', 'packages/a/node_modules', 'packages/b/.venv']);
  });
});

describe('a gate that writes files (the backstop behind gate hygiene)', () => {
  const GATES = [
    {
      name: 'fixer',
      command:
        'echo fixed > package.json && echo new > made.txt && rm vendor/dep/index.js && echo scratch > secret.env',
      kind: 'lint' as const,
      source: 'x',
    },
    {
      name: 'next',
      command: 'cat package.json && test -f vendor/dep/index.js && test ! -e made.txt',
      kind: 'test' as const,
      source: 'x',
    },
  ];

  async function check(sandbox: boolean) {
    const { repo, head } = await project();
    const log = join(repo, '..', `${repo.split('/').at(-1)}-writes.log`);
    const run = await runGatesOn(GATES, {
      ...place(repo, sandbox ? sandboxFor(repo) : undefined),
      commit: head,
      logFile: log,
    });
    // Reported as the gate's own doing, with what it changed (an ignored file is not a change) …
    expect(run.results[0]?.modified?.files.sort()).toEqual(['made.txt', 'package.json', 'vendor/dep/index.js']);
    const ref = run.results[0]?.modified?.ref ?? '';
    expect(ref).toMatch(/^refs\/star-loop\/gate-edits\/[0-9a-f]{40}$/);
    // … kept on a ref for review, its parent the commit judged …
    expect(await git(repo, 'show', `${ref}:package.json`)).toBe('fixed');
    expect(await git(repo, 'rev-parse', `${ref}^`)).toBe(head);
    // … and put back: the next gate sees the commit, and reports nothing.
    expect(run.results[1]?.status).toBe('pass');
    expect(run.results[1]?.modified).toBeUndefined();
    // The user's work tree and branch never moved.
    expect(await git(repo, 'status', '--porcelain')).toBe('?? untracked.txt');
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(head);
  }

  it('without a sandbox: reported, kept on a ref, put back before the next gate', () => check(false));
  sandboxIt('in the sandbox: the same', () => check(true));
});
