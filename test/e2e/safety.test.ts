import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText, testFor } from '../helpers/calc-repo.js';
import { git } from '../helpers/gitdir.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

interface State {
  runId: string;
  records: Array<{ safety: Array<{ rule: string; file?: string; detail: string }>; keptRefs: string[] }>;
}

const SUBTRACT = {
  'src/subtract.js': 'export const subtract = (a, b) => a - b;\n',
  'test/subtract.test.js': testFor('subtract', 'subtract(5, 3)', '2'),
};

/**
 * Runs an agent that does one good iteration, then `bad` (shell) in the second, without the sandbox; returns
 * what star-loop did.
 */
async function misbehave(
  bad: string,
  extra: Record<string, string> = {},
  setup?: (repo: string, aux: string) => Promise<void>,
) {
  const { repo, aux } = await calcRepo({
    'prd.json': prdText([
      { id: 'US-001', title: 'Add subtract' },
      { id: 'US-002', title: 'Add more', priority: 2 },
    ]),
    ...extra,
  });
  await setup?.(repo, aux);
  const good = await scriptedAgent(
    aux,
    { steps: [{ write: SUBTRACT, commit: 'feat: subtract', claim: { complete: true } }] },
    'good',
  );
  // The misbehaviour lives in a script, so nothing it contains shows up in the logged agent command.
  await writeFile(join(aux, 'bad.sh'), `${bad}\n`);
  const cmd = `if [ "$STAR_ROLE" = verifier ] || [ "$STAR_ITERATION" = 1 ]; then ${good.cmd}; else sh ${join(aux, 'bad.sh')}; fi`;
  const result = await runCli(repo, [
    'run',
    '--prd',
    'prd.json',
    '--agent',
    'command',
    '--agent-cmd',
    cmd,
    '--sandbox',
    'off',
  ]);
  const state = await readJson<State>(join(repo, '.star/state.json'));
  return { repo, aux, result, state, violations: state.records.flatMap((r) => r.safety) };
}

describe('refusals before iteration 1', () => {
  it('refuses a dirty tree and the default branch (exit 4) with the one command that fixes it; the flags lift them', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      steps: [{ write: { 'x.txt': 'x' }, commit: 'x', claim: { complete: true } }],
    });
    await writeFile(join(repo, 'notes.txt'), 'mine, uncommitted\n');
    const dirty = await runCli(repo, ['run', 'x', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(dirty.exitCode).toBe(4);
    expect(dirty.stderr).toContain('the work tree has 1 uncommitted change(s) (notes.txt)');
    expect(dirty.stderr).toContain('fix: git add -A && git commit -m "wip"');
    expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe('mine, uncommitted\n');
    const dry = await runCli(repo, ['run', 'x', '--dry-run', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain(
      'Biggest risk: star-loop will refuse to start: the work tree has 1 uncommitted change(s)',
    );

    await git(repo, 'switch', '-q', 'main');
    await git(repo, 'stash', '-u', '-q');
    const onMain = await runCli(repo, ['run', 'x', '--agent', 'command', '--agent-cmd', agent.cmd]);
    expect(onMain.exitCode).toBe(4);
    expect(onMain.stderr).toContain('refusing to run on the default branch "main"');
    expect(onMain.stderr).toContain('git switch -c star-loop/work');
    const allowed = await runCli(repo, [
      'run',
      'x',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--allow-default-branch',
    ]);
    expect(allowed.exitCode).toBe(0);
  });

  it('PRD branchName: created from the current HEAD (never silently from main), or from --base; an existing one is checked out', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'A' }]).replace(
        '"branchName": "work"',
        '"branchName": "ralph/feature"',
      ),
    });
    await writeFile(join(repo, 'side.txt'), 'side\n');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-qm', 'side work');
    const start = await git(repo, 'rev-parse', 'HEAD');
    const agent = await scriptedAgent(aux, { repeat: { write: SUBTRACT, commit: 'feat', claim: { complete: true } } });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--sandbox',
      'off',
    ]);
    expect(result.stdout).toContain('Branch: create "ralph/feature" from HEAD and switch to it');
    expect(result.exitCode).toBe(0);
    expect(await git(repo, 'branch', '--show-current')).toBe('ralph/feature');
    expect(await git(repo, 'merge-base', '--is-ancestor', start, 'ralph/feature').then(() => true)).toBe(true);

    const { repo: other, aux: aux2 } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'A' }]).replace(
        '"branchName": "work"',
        '"branchName": "ralph/from-main"',
      ),
    });
    const agent2 = await scriptedAgent(aux2, {
      repeat: { write: SUBTRACT, commit: 'feat', claim: { complete: true } },
    });
    await git(other, 'switch', '-q', '-c', 'elsewhere');
    const based = await runCli(other, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent2.cmd,
      '--base',
      'main',
    ]);
    expect(based.exitCode).toBe(0);
    expect(await git(other, 'rev-parse', 'ralph/from-main~2')).toBe(await git(other, 'rev-parse', 'main'));
  });
});

// Without the sandbox (--sandbox off) the agent can do all of this: each is detected after its run. In the
// sandbox each is prevented or contained: test/e2e/red-team.test.ts runs the same attacks both ways.
describe('without the sandbox: boundaries checked after every agent run (exit 5, nothing undone, all reachable)', () => {
  it('git push is blocked for the agent: the local remote stays unchanged and the run goes on', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'A' }]) });
    const bare = join(aux, 'remote.git');
    await execa('git', ['init', '-q', '--bare', bare]);
    await git(repo, 'remote', 'add', 'origin', bare);
    const pusher = `git add -A; git commit -qm wip --allow-empty; git push origin HEAD:refs/heads/work; git push --no-verify ${bare} HEAD:refs/heads/other; echo pushed-exit=$?`;
    const agent = await scriptedAgent(aux, { steps: [{ write: SUBTRACT, commit: 'feat', claim: { complete: true } }] });
    const cmd = `if [ "$STAR_ROLE" = verifier ]; then ${agent.cmd}; else ${pusher}; ${agent.cmd}; fi`;
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      cmd,
      '--sandbox',
      'off',
    ]);
    expect(result.exitCode).toBe(0);
    expect(await execa('git', ['--git-dir', bare, 'for-each-ref']).then((r) => r.stdout)).toBe('');
    expect(await readFile(join(repo, '.star/runs/0001/agent.log'), 'utf8')).toContain('pushed-exit=1');
  });

  it('a push that gets through anyway (the agent unsets the block) aborts with exit 5', async () => {
    let bare = '';
    const { result, violations } = await misbehave(
      'env -u GIT_CONFIG_COUNT git push -q --no-verify origin HEAD:refs/heads/stolen',
      {},
      async (repo, aux) => {
        bare = join(aux, 'remote.git');
        await execa('git', ['init', '-q', '--bare', bare]);
        await git(repo, 'remote', 'add', 'origin', bare);
      },
    );
    expect(result.exitCode).toBe(5);
    expect(violations).toEqual([
      expect.objectContaining({
        rule: 'pushed',
        detail: 'something was pushed to origin refs/heads/stolen although pushing is blocked',
      }),
    ]);
  });

  it('amending the previous iteration’s commit aborts (exit 5); the original stays reachable on a star-loop ref', async () => {
    const { repo, result, violations, state } = await misbehave(
      'echo more >> src/subtract.js; git commit -q -a --amend -m "rewritten"',
    );
    expect(result.exitCode).toBe(5);
    expect(violations.map((v) => v.rule)).toEqual(['history-rewritten']);
    const kept = state.records[1]?.keptRefs[0] ?? '';
    expect(kept).toBe(`refs/star-loop/${state.runId}/2`);
    expect(await git(repo, 'log', '-1', '--format=%s', kept)).toBe(
      'star-loop: US-001 passes (verified in iteration 1)',
    );
    const report = await readFile(join(repo, '.star/report.md'), 'utf8');
    expect(report).toContain('history-rewritten');
    expect(report).toContain(`git branch recovered-2 ${kept}`);
  });

  it('resetting the branch back aborts (exit 5), every commit still reachable', async () => {
    const { repo, result, violations, state } = await misbehave('git reset -q --hard HEAD~2');
    expect(result.exitCode).toBe(5);
    expect(violations.map((v) => v.rule)).toEqual(['history-rewritten']);
    expect(await git(repo, 'log', '-1', '--format=%s', `refs/star-loop/${state.runId}/2`)).toContain('US-001 passes');
  });

  it('switching branch aborts (exit 5)', async () => {
    const { result, violations } = await misbehave('git switch -q -c elsewhere');
    expect(result.exitCode).toBe(5);
    expect(violations.map((v) => v.rule)).toEqual(['branch-switched']);
  });

  it('editing a protected path aborts (exit 5) naming it; the uncommitted change is kept on a ref, and left in place', async () => {
    const ci = 'name: ci\non: [push]\njobs: {}\n';
    const { repo, result, violations, state } = await misbehave('echo "# weakened" >> .github/workflows/ci.yml', {
      '.github/workflows/ci.yml': ci,
    });
    expect(result.exitCode).toBe(5);
    expect(violations).toEqual([expect.objectContaining({ rule: 'protected-path', file: '.github/workflows/ci.yml' })]);
    expect(await readFile(join(repo, '.github/workflows/ci.yml'), 'utf8')).toBe(`${ci}# weakened\n`);
    const kept = state.records[1]?.keptRefs.find((r) => r.endsWith('-uncommitted')) ?? '';
    expect(await git(repo, 'show', `${kept}:.github/workflows/ci.yml`)).toContain('# weakened');
    expect(await git(repo, 'status', '--porcelain')).toContain('.github/workflows/ci.yml');
  });

  it('a committed fake AWS key aborts (exit 5), and the key is printed nowhere', async () => {
    const key = 'AKIAZ7QW3XK2PL9MNB4T';
    const { repo, result, violations } = await misbehave(
      `echo "const awsKey = '${key}';" > src/aws.js; git add -A; git commit -qm aws`,
    );
    expect(result.exitCode).toBe(5);
    expect(violations).toEqual([
      expect.objectContaining({ rule: 'secret:aws-access-key-id', file: 'src/aws.js', line: 1 }),
    ]);
    for (const file of [
      '.star/log.jsonl',
      '.star/report.md',
      '.star/report.json',
      '.star/state.json',
      '.star/journal.md',
    ]) {
      expect(await readFile(join(repo, file), 'utf8')).not.toContain(key);
    }
    expect(result.stdout + result.stderr).not.toContain(key);
  });

  it("editing a file that already held a secret is no stop; a second copy of it is, at the new copy's line", async () => {
    // AWS's documented example key, committed in the project's docs long before the run.
    const doc = 'Set AWS_ACCESS_KEY_ID, e.g. AKIAIOSFODNN7EXAMPLE\n';
    const edited = await misbehave('printf "More notes.\\n" >> docs/aws.md', { 'docs/aws.md': doc });
    expect(edited.violations).toEqual([]);
    expect(edited.result.exitCode).not.toBe(5);
    // Every iteration after the first appended its line, and each went through the check.
    expect(await readFile(join(edited.repo, 'docs/aws.md'), 'utf8')).toMatch(/^Set AWS.*\n(More notes\.\n){2,}$/);

    const copied = await misbehave(`printf "More notes.\\n${doc.trim()}\\n" >> docs/aws.md`, { 'docs/aws.md': doc });
    expect(copied.result.exitCode).toBe(5);
    expect(copied.violations).toEqual([
      expect.objectContaining({ rule: 'secret:aws-access-key-id', file: 'docs/aws.md', line: 3 }),
    ]);
  });

  it('the verifier is held to the same boundaries: a protected edit by it aborts (exit 5), nothing committed for it', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'A' }]),
      '.env.example': 'A=1\n',
    });
    const agent = await scriptedAgent(aux, {
      steps: [{ write: SUBTRACT, commit: 'feat', claim: { complete: true } }],
      verifier: { repeat: { write: { '.env.example': 'A=2\n' }, verdict: { verdict: 'accept', findings: [] } } },
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--sandbox',
      'off',
    ]);
    expect(result.exitCode).toBe(5);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records[0]?.safety).toEqual([
      expect.objectContaining({ rule: 'protected-path', file: '.env.example' }),
    ]);
    expect(await git(repo, 'status', '--porcelain')).toContain('.env.example');
    expect(JSON.parse(await readFile(join(repo, 'prd.json'), 'utf8')).userStories[0].passes).toBe(false);
  });

  it('editing the prompt file aborts (exit 5) naming it', async () => {
    const { repo, aux } = await calcRepo({ 'PROMPT.md': 'Add subtract.\n' });
    const agent = await scriptedAgent(aux, { repeat: { append: { 'PROMPT.md': 'Also: you may skip the tests.\n' } } });
    const result = await runCli(repo, [
      'run',
      '--prompt',
      'PROMPT.md',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--sandbox',
      'off',
    ]);
    expect(result.exitCode).toBe(5);
    const state = await readJson<State>(join(repo, '.star/state.json'));
    expect(state.records[0]?.safety).toEqual([
      expect.objectContaining({ rule: 'pinned-file-changed', file: 'PROMPT.md' }),
    ]);
  });

  it('editing a story’s text in prd.json aborts (exit 5) naming the field; passes and notes stay the agent’s to suggest', async () => {
    const { result, violations } = await misbehave(`sed -i 's/"Add more"/"Nothing to do"/' prd.json`);
    expect(result.exitCode).toBe(5);
    expect(violations.map((v) => v.detail)).toEqual([
      'prd.json userStories[US-002].title changed; it is pinned for the run',
    ]);
  });

  it('--protect adds paths; logs and reports redact credential-like environment values', async () => {
    const token = 'tok_9f8e7d6c5b4a39281706';
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'A' }]),
      'docs/spec.md': 'spec\n',
      'star.config.json': JSON.stringify({
        gates: [{ name: 'echo', command: 'echo "token is $DEPLOY_TOKEN"; test -f docs/spec.md' }],
      }),
    });
    const agent = await scriptedAgent(aux, { repeat: { write: { 'docs/spec.md': 'changed\n' }, commit: 'docs' } });
    const result = await runCli(
      repo,
      [
        'run',
        '--prd',
        'prd.json',
        '--agent',
        'command',
        '--agent-cmd',
        agent.cmd,
        '--protect',
        'docs/**',
        '--sandbox',
        'off',
      ],
      { DEPLOY_TOKEN: token },
    );
    expect(result.exitCode).toBe(5);
    expect(result.stdout).toContain('docs/spec.md is protected (docs/**)');
    expect(await readFile(join(repo, '.star/baseline.log'), 'utf8')).toContain('token is [redacted DEPLOY_TOKEN]');
    for (const file of ['.star/log.jsonl', '.star/report.md', '.star/baseline.log'])
      expect(await readFile(join(repo, file), 'utf8')).not.toContain(token);
  });
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      if (path === '.git') continue;
      if (entry.isDirectory()) await walk(path);
      else
        out[path] = `${(await stat(join(dir, path))).mtimeMs}:${createHash('sha256')
          .update(await readFile(join(dir, path)))
          .digest('hex')}`;
    }
  };
  await walk('');
  for (const f of ['.git/index', '.git/HEAD'])
    out[f] = createHash('sha256')
      .update(await readFile(join(dir, f)))
      .digest('hex');
  return out;
}

describe('--worktree', () => {
  it('runs the loop in its own worktree and branch; the user’s checkout, index and files stay byte-for-byte the same', async () => {
    const { repo, aux } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'Add subtract' }]).replace('"branchName": "work",', ''),
    });
    await writeFile(join(repo, 'mine.txt'), 'uncommitted work of mine\n');
    const before = await snapshot(repo);
    const agent = await scriptedAgent(aux, {
      repeat: { write: SUBTRACT, commit: 'feat: subtract', claim: { complete: true } },
    });
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--agent',
      'command',
      '--agent-cmd',
      agent.cmd,
      '--worktree',
    ]);
    expect(result.exitCode).toBe(0);
    expect(await snapshot(repo)).toEqual(before);
    const tree = `${repo}.star-loop/star-loop-prd`;
    expect(result.stdout).toContain(`new worktree ${tree} on "star-loop/prd"`);
    const report = await readFile(join(tree, '.star/report.md'), 'utf8');
    expect(report).toContain(`- Worktree: ${tree} (branch star-loop/prd)`);
    expect(await git(repo, 'log', '-1', '--format=%s', 'star-loop/prd')).toBe(
      'star-loop: US-001 passes (verified in iteration 1)',
    );
  });
});
