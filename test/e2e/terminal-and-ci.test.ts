import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { BIN, readJson, runCli, scriptedAgent, withAgentDirs } from '../helpers/run-cli.js';

/** The environment of a person at a terminal: no CI markers, colours allowed. */
function terminalEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !['CI', 'NO_COLOR', 'FORCE_COLOR', 'GITHUB_ACTIONS'].includes(k)) env[k] = v;
  return { ...env, TERM: 'xterm-256color' };
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

describe('the terminal: live in a real pseudo-terminal, plain elsewhere', () => {
  it('under a pty (script): one status line redrawn in place, never added to the scrollback', async () => {
    const { repo, aux } = await calcRepo();
    const slow = await scriptedAgent(aux, {
      repeat: { sleepMs: 2500, append: { 'a.txt': 'x\n' }, commit: 'step {{call}}' },
    });
    const command = [
      process.execPath,
      BIN,
      ...withAgentDirs(['run', 'steps', '--agent-cmd', slow.cmd, '--max-iterations', '3', '--verify', 'off']),
    ]
      .map(quote)
      .join(' ');
    // util-linux script(1) runs the command on a new pseudo-terminal and copies what it shows.
    const pty = await execa('script', ['-qfec', command, '/dev/null'], {
      cwd: repo,
      env: terminalEnv(),
      extendEnv: false,
      reject: false,
    });
    expect(pty.exitCode).toBe(3);
    const out = pty.stdout;
    const redraws = out.split('\r\u001b[2K').length - 1;
    expect(redraws).toBeGreaterThanOrEqual(4);
    expect(out).toContain('⟳ iteration 1/3 (#1)');
    // The status line is always overwritten, never ended with a newline.
    expect(out).not.toMatch(/⟳[^\r\n]*\r?\n/);
    expect(out).toContain('\u001b[1m'); // colour on a terminal
    expect(out).toContain('star-loop: max-iterations');
  }, 60_000);

  it('not a terminal, or CI=true: plain timestamped lines and no escape codes; FORCE_COLOR adds colour only', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, { repeat: { append: { 'a.txt': 'x\n' }, commit: 'step {{call}}' } });
    const plain = await runCli(
      repo,
      ['run', 'steps', '--agent-cmd', agent.cmd, '--max-iterations', '2', '--verify', 'off'],
      {
        CI: 'true',
      },
    );
    expect(plain.stdout).not.toContain('\u001b');
    expect(plain.stdout).not.toContain('\r');
    const lines = plain.stdout.split('\n').filter(Boolean);
    expect(lines.every((l) => /^\d\d:\d\d:\d\d /.test(l))).toBe(true);
    expect(plain.stdout).toMatch(/\d\d:\d\d:\d\d ▶ iteration 1/);

    const colored = await runCli(
      repo,
      ['run', 'more', '--agent-cmd', agent.cmd, '--max-iterations', '2', '--verify', 'off'],
      {
        FORCE_COLOR: '1',
        NO_COLOR: '',
      },
    );
    expect(colored.stdout).toContain('\u001b[1m');
    expect(colored.stdout).not.toContain('\r');
  });

  it('the agent’s output is summarised; --verbose streams every line it prints', async () => {
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {
      repeat: { append: { 'a.txt': 'x\n' }, commit: 'step {{call}}', final: 'LINE-FROM-THE-AGENT' },
    });
    const args = ['run', 'steps', '--agent-cmd', agent.cmd, '--max-iterations', '2', '--verify', 'off'];
    const quiet = await runCli(repo, args, { CI: 'true' });
    expect(quiet.stdout).not.toContain('LINE-FROM-THE-AGENT');
    const verbose = await runCli(repo, [...args, '--verbose'], { CI: 'true' });
    expect(verbose.stdout).toMatch(/\d\d:\d\d:\d\d {3}│ LINE-FROM-THE-AGENT/);
  });

  it('--json: every line is an event valid against the published schema (`star-loop schema events`)', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]) });
    const agent = await scriptedAgent(aux, {
      steps: [{ final: 'Which file should it go in?' }],
      repeat: {
        write: { 'src/subtract.js': 'export const subtract = (a, b) => a - b;\n' },
        commit: 'subtract',
        claim: { complete: true, story: 'US-001' },
      },
    });
    const schema = JSON.parse((await runCli(repo, ['schema', 'events'])).stdout) as object;
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent-cmd', agent.cmd, '--json']);
    expect(result.exitCode).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['run.started', 'iteration.finished', 'claim.verdict', 'run.finished']),
    );
    for (const event of events) expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    // A malformed event is refused: the schema is not a blank check.
    expect(validate({ type: 'run.finished', time: 'now' })).toBe(false);
  });
});

describe('getting started: init, validate, import, schema', () => {
  it('init writes the three files with the gates recon found, and never overwrites one', async () => {
    const { repo } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Mine' }]) });
    const before = await readFile(join(repo, 'prd.json'), 'utf8');
    const init = await runCli(repo, ['init']);
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain('kept     prd.json (it exists; star-loop init never overwrites)');
    expect(init.stdout).toContain('wrote    AGENTS.md');
    expect(init.stdout).toContain('wrote    star.config.json');
    expect(await readFile(join(repo, 'prd.json'), 'utf8')).toBe(before);
    const agents = await readFile(join(repo, 'AGENTS.md'), 'utf8');
    expect(agents).toContain('- test: `npm test`');
    expect(agents.split('\n').length).toBeLessThanOrEqual(60);
    // The config it wrote is one star-loop accepts, and the plan shows its defaults.
    const dry = await runCli(repo, ['run', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    await writeFile(join(repo, 'AGENTS.md'), 'my own\n');
    await runCli(repo, ['init']);
    expect(await readFile(join(repo, 'AGENTS.md'), 'utf8')).toBe('my own\n');
  });

  it.each([
    ['a top-level "tasks"', { tasks: [] }, 'tasks: found "tasks" where star-loop expects "userStories"'],
    ['a top-level "prd"', { prd: { userStories: [] } }, 'prd: found "prd" where star-loop expects "userStories"'],
    [
      'a story "status"',
      { userStories: [{ id: 'A', title: 'a', status: 'done' }] },
      'userStories[0].status: star-loop tracks completion in "passes"',
    ],
    [
      'story "subtasks"',
      { userStories: [{ id: 'A', title: 'a', passes: false, subtasks: ['x'] }] },
      'userStories[0].subtasks: stories have no subtasks',
    ],
  ])('validate names %s with a fix (exit 2)', async (_name, prd, message) => {
    const { repo } = await calcRepo({ 'bad.json': `${JSON.stringify(prd)}\n` });
    const result = await runCli(repo, ['validate', 'bad.json']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('star-loop import');
  });

  it('import converts stories with status and qualityGates into prd.json and gates; validate accepts it; nothing is overwritten', async () => {
    const source = {
      project: 'shop',
      qualityGates: ['npm test'],
      stories: [
        { id: 'S1', title: 'Cart', status: 'done' },
        { id: 'S2', title: 'Pay', status: 'open' },
      ],
    };
    const { repo } = await calcRepo({ 'plan.json': `${JSON.stringify(source)}\n` });
    const imported = await runCli(repo, ['import', 'plan.json', '-o', 'prd.json']);
    expect(imported.exitCode).toBe(0);
    expect(imported.stdout).toContain('S1: status "done" became passes: true');
    expect(await readJson(join(repo, 'star.config.json'))).toEqual({ gates: [{ name: 'test', command: 'npm test' }] });
    expect((await runCli(repo, ['validate', 'prd.json'])).stdout).toContain(
      'prd.json: valid — 2 stories, 1 passing; next: S2 Pay',
    );
    const again = await runCli(repo, ['import', 'plan.json']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('prd.json exists: import never overwrites');
    expect(existsSync(join(repo, 'prd.json'))).toBe(true);
  });
});

describe('CI: GitHub job summary and annotations', () => {
  it('the report is appended to GITHUB_STEP_SUMMARY; findings become ::error annotations on their file and line', async () => {
    const { repo, aux } = await calcRepo({ 'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]) });
    const agent = await scriptedAgent(aux, {
      repeat: {
        append: { 'src/subtract.js': '// try {{call}}\n' },
        commit: 'try {{call}}',
        claim: { complete: true, story: 'US-001' },
      },
      verifier: {
        repeat: {
          verdict: {
            verdict: 'reject',
            findings: [{ rule: 'criteria-unmet', file: 'src/subtract.js', line: 1, detail: 'no subtract' }],
          },
        },
      },
    });
    const summary = join(aux, 'summary.md');
    await writeFile(summary, '# earlier step\n');
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent-cmd', agent.cmd, '--park-after', '1'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(result.exitCode).toBe(4);
    const text = await readFile(summary, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toContain('# star-loop report — parked');
    expect(result.stdout).toContain(
      '::error file=src/subtract.js,line=1,title=star-loop rejected US-001%3A criteria-unmet::iteration 1: verifier: no subtract',
    );
    expect(result.stdout).toContain('::warning title=star-loop parked US-001::');
  });
});
