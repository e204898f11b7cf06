import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { git } from '../helpers/gitdir.js';
import { sandboxIt } from '../helpers/needs-sandbox.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

/**
 * Input an agent or a user controls never ends in an internal error: every case stops with its own exit code
 * and reason, the lock released, the report written, and nothing lost (issue 18).
 */
const PRD = prdText([
  { id: 'US-001', title: 'Subtract' },
  { id: 'US-002', title: 'Negate', priority: 2 },
]);
const run = (repo: string, agentCmd: string, extra: string[] = []) =>
  runCli(repo, [
    'run',
    '--prd',
    'prd.json',
    '--max-iterations',
    '3',
    '--agent',
    'command',
    '--agent-cmd',
    agentCmd,
    ...extra,
  ]);

interface State {
  stopReason: string;
  records: Array<{ verdict: string; claimNotes: string[] }>;
}

async function ended(repo: string, exitCode: number, stopReason: string, result: { exitCode: number; stdout: string }) {
  expect(result.exitCode, result.stdout.slice(-2000)).toBe(exitCode);
  expect(result.stdout).not.toContain('internal error');
  expect((await readJson<State>(join(repo, '.star/state.json'))).stopReason).toBe(stopReason);
  expect(existsSync(join(repo, '.star/report.md'))).toBe(true);
  expect(existsSync(join(repo, '.star/lock'))).toBe(false);
}

describe('no crash reachable from input', () => {
  it('the agent sets "passes": "yes" or deletes prd.json: put back as the iteration found it, and said', async () => {
    for (const write of [{ 'prd.json': PRD.replace('"passes": false', '"passes": "yes"') }, undefined]) {
      const { repo, aux } = await calcRepo({ 'prd.json': PRD });
      const step = write ? { write, claim: { complete: true } } : { delete: ['prd.json'], claim: { complete: true } };
      const agent = await scriptedAgent(aux, { steps: [step], repeat: {} });
      const result = await run(repo, agent.cmd);
      await ended(repo, 3, 'max-iterations', result);
      expect(readFileSync(join(repo, 'prd.json'), 'utf8')).toBe(PRD);
      const state = await readJson<State>(join(repo, '.star/state.json'));
      expect(state.records[0]?.claimNotes.join('\n')).toContain('the agent left prd.json unreadable');
      expect(await git(repo, 'log', '--format=%s', '-1')).toContain('restore prd.json (the agent left it unreadable');
    }
  });

  it('the agent writes prd.json that is not JSON, or nested 100 000 deep: a safety stop (its stories are pinned), exit 5', async () => {
    for (const text of ['{bad', `{"userStories": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`]) {
      const { repo, aux } = await calcRepo({ 'prd.json': PRD });
      const agent = await scriptedAgent(aux, { steps: [{ write: { 'prd.json': text } }], repeat: {} });
      const result = await run(repo, agent.cmd);
      await ended(repo, 5, 'safety', result);
      // Nothing undone: what the agent left is there for a human to see.
      expect(readFileSync(join(repo, 'prd.json'), 'utf8')).toBe(text);
    }
  });

  it('a prd.json nested too deep is invalid for validate and for run alike (exit 2), not a stack overflow', async () => {
    const deep = PRD.replace('"notes": ""', `"notes": "", "extra": ${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    const { repo } = await calcRepo({ 'prd.json': deep });
    const validate = await runCli(repo, ['validate', 'prd.json']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toContain('nested deeper than 64 levels');
    const result = await run(repo, 'true');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('nested deeper than 64 levels');
  });

  it('`.star` that is a file or a dangling symlink: exit 2 with the fix, and it is left as it was', async () => {
    for (const make of [
      (dir: string) => writeFile(join(dir, '.star'), 'mine\n'),
      (dir: string) => symlink('/nonexistent/star', join(dir, '.star')),
    ]) {
      const { repo } = await calcRepo({ 'prd.json': PRD });
      await make(repo);
      const result = await run(repo, 'true');
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/\.star is a (file|symbolic link), not star-loop's state folder/);
      expect(result.stderr).toContain('mv .star .star.old');
      expect(lstatSync(join(repo, '.star')).isDirectory()).toBe(false);
    }
  });

  it('a branchName git refuses (-f, HEAD, a..b) is exit 2 with git’s reason, for run and fleet, before anything moves', async () => {
    for (const name of ['-f', 'HEAD', 'a..b']) {
      const { repo } = await calcRepo({ 'prd.json': PRD.replace('"branchName": "work"', `"branchName": "${name}"`) });
      const head = await git(repo, 'rev-parse', 'HEAD');
      for (const args of [
        ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', 'true'],
        ['fleet', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', 'true'],
      ]) {
        const result = await runCli(repo, args);
        expect(result.exitCode, result.stderr).toBe(2);
        expect(result.stderr).toContain(
          `branchName "${name}" is not a branch name git accepts: '${name}' is not a valid branch name`,
        );
      }
      expect(await git(repo, 'rev-parse', 'HEAD')).toBe(head);
      expect(await git(repo, 'branch', '--list', '--format=%(refname:short)')).not.toContain(name);
    }
  });
});

describe('resume re-checks before it trusts', () => {
  it('an agent that edits a workflow, writes a key and kill -9s the runner: resume stops with exit 5, commits nothing', async () => {
    const { repo } = await calcRepo({ 'prd.json': PRD, '.github/workflows/ci.yml': 'on: push\n' });
    const head = await git(repo, 'rev-parse', 'HEAD');
    // With --sandbox off the agent can see the runner's PID in .star/lock; in the sandbox it could not.
    const attack = [
      "echo 'on: [push, workflow_dispatch]' > .github/workflows/ci.yml",
      "echo 'AWS_KEY=AKIAZ7QW3XK2PL9MNB4T' > deploy.env",
      'kill -9 "$(sed -n \'s/.*"pid":\\([0-9]*\\).*/\\1/p\' .star/lock)"',
      'sleep 1',
    ].join('; ');
    const first = await run(repo, attack, ['--sandbox', 'off']);
    expect(first.exitCode).not.toBe(0);
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(head);

    const resumed = await runCli(repo, ['resume']);
    expect(resumed.exitCode, resumed.stdout.slice(-2000)).toBe(5);
    expect(resumed.stdout).toContain('found on resume, before anything was committed');
    expect(resumed.stdout).toContain('.github/workflows/ci.yml is protected');
    expect(resumed.stdout).toMatch(/secret|AWS/i);
    // Nothing committed; what the agent left is still there for a human to see.
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(repo, 'status', '--porcelain')).toContain('deploy.env');
    const state = await readJson<State & { status: string }>(join(repo, '.star/state.json'));
    expect(state.stopReason).toBe('safety');
    expect(existsSync(join(repo, '.star/lock'))).toBe(false);
    expect(readFileSync(join(repo, '.star/report.md'), 'utf8')).toContain('Safety stop');
  });
});

describe('secrets everywhere text flows', () => {
  it('a token the agent prints and a key in its claim summary never reach a log, the journal, state, a prompt, a report or a commit', async () => {
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2)}`;
    const key = 'AKIAZ7QW3XK2PL9MNB4T';
    const { repo, aux } = await calcRepo({ 'prd.json': PRD });
    const agent = await scriptedAgent(aux, {
      steps: [
        {
          write: { 'notes.txt': 'work\n' },
          final: `I used ${token} to read the API.`,
          claim: { complete: false, summary: `configured ${key} for the deploy` },
        },
      ],
      repeat: { final: `still ${token}` },
    });
    await run(repo, agent.cmd, ['--max-iterations', '3']);
    const star = join(repo, '.star');
    const texts = [
      readFileSync(join(star, 'runs/0001/agent.log'), 'utf8'),
      readFileSync(join(star, 'runs/0001/claim.json'), 'utf8'),
      readFileSync(join(star, 'runs/0002/prompt.md'), 'utf8'),
      readFileSync(join(star, 'journal.md'), 'utf8'),
      readFileSync(join(star, 'state.json'), 'utf8'),
      readFileSync(join(star, 'log.jsonl'), 'utf8'),
      readFileSync(join(star, 'report.md'), 'utf8'),
      await git(repo, 'log', '--format=%B'),
    ];
    for (const text of texts) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(key);
    }
    expect(texts[0]).toContain('[redacted github-token sha256:');
    expect(texts.join('\n')).toContain('[redacted aws-access-key-id sha256:');
  });
});

describe('the secret scan sees every byte an agent adds', () => {
  const key = 'AKIAZ7QW3XK2PL9MNB4T';
  it.each([
    [
      'in an uncommitted file over 1 MB with NUL bytes',
      `head -c 2000000 /dev/zero > blob.bin; printf 'x\\0 aws=${key}\\n' >> blob.bin`,
    ],
    [
      'in a commit message',
      `echo x > a.txt; git add a.txt; git -c user.name=a -c user.email=a@b commit -qm 'deploy with ${key}'`,
    ],
    ['in a file name', `echo x > 'backup-${key}.txt'`],
    [
      'in a binary file the agent committed itself',
      `printf 'PK\\0\\0 ${key} \\0' > bundle.zip; git add bundle.zip; git -c user.name=a -c user.email=a@b commit -qm bundle`,
    ],
  ])('a key %s: a safety stop, exit 5, nothing committed by star-loop', async (_, cmd) => {
    const { repo } = await calcRepo({ 'prd.json': PRD });
    const head = await git(repo, 'rev-parse', 'HEAD');
    const result = await run(repo, cmd, ['--sandbox', 'off']);
    expect(result.exitCode, result.stdout.slice(-1500)).toBe(5);
    expect(result.stdout).toContain('a secret (aws-access-key-id)');
    expect(result.stdout).not.toContain(key);
    // star-loop commits nothing: HEAD is the start, or the agent's own commit.
    expect(await git(repo, 'log', '--format=%s', `${head}..HEAD`)).not.toContain('star-loop:');
  });
});

describe('no false alarms from the world outside the run', () => {
  sandboxIt(
    'someone else pushes main to the shared origin during the agent’s run: a warning, not a safety stop',
    async () => {
      const { repo, aux } = await calcRepo({ 'prd.json': PRD });
      const origin = join(aux, 'origin.git');
      await execa('git', ['init', '-q', '--bare', origin]);
      await git(repo, 'remote', 'add', 'origin', origin);
      await git(repo, 'push', '-q', origin, 'HEAD:refs/heads/main');
      const colleague = join(aux, 'colleague');
      await execa('git', ['clone', '-q', '-b', 'main', origin, colleague]);
      // The agent works (in the sandbox) while a colleague pushes to main.
      const runner = run(repo, 'touch started.flag; sleep 4; echo done > notes.txt', ['--max-iterations', '2']);
      for (let i = 0; i < 200 && !existsSync(join(repo, 'started.flag')); i++)
        await new Promise((r) => setTimeout(r, 50));
      await execa('git', [
        '-C',
        colleague,
        '-c',
        'user.name=c',
        '-c',
        'user.email=c@e',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'theirs',
      ]);
      await execa('git', ['-C', colleague, 'push', '-q', 'origin', 'HEAD:main']);
      const result = await runner;
      expect(result.exitCode, result.stdout.slice(-1500)).not.toBe(5);
      expect(result.stdout).toContain(
        "origin refs/heads/main moved during the agent's run: the sandboxed agent cannot reach it",
      );
    },
  );
});
