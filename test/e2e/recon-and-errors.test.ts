import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { runCli } from '../helpers/run-cli.js';

/** Every file under `dir` (including .git) with its content hash and mode. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      if (entry.isDirectory()) await walk(path);
      else {
        const info = await stat(join(dir, path));
        out[path] = `${info.mode}:${info.mtimeMs}:${createHash('sha256')
          .update(await readFile(join(dir, path)))
          .digest('hex')}`;
      }
    }
  };
  await walk('');
  return out;
}

describe('recon, --dry-run and bad input', () => {
  it('--dry-run prints the plan and exits 0 without creating or changing any file', async () => {
    const { repo } = await calcRepo({
      'prd.json': prdText([
        { id: 'US-001', title: 'Add subtract' },
        { id: 'US-002', title: 'Add divide', priority: 2, dependsOn: ['US-001'] },
      ]),
    });
    const before = await snapshot(repo);
    const result = await runCli(repo, [
      'run',
      '--prd',
      'prd.json',
      '--dry-run',
      '--agent',
      'command',
      '--agent-cmd',
      'true',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('- test (runs tests): `npm test`  [package.json:6]');
    expect(result.stdout).toContain('Stories: 2 total, 0 passing, 2 remaining; next: US-001');
    expect(result.stdout).toContain('US-002 p2 Add divide  (waits for US-001)');
    expect(result.stdout).toContain('Limits: at most 20 iterations');
    expect(result.stdout).toContain('Biggest risk: none visible');
    expect(await snapshot(repo)).toEqual(before);
    expect(existsSync(join(repo, '.star'))).toBe(false);
  });

  it('--dry-run names the biggest risk when no gates are found', async () => {
    const { repo } = await calcRepo({ 'package.json': '{"name":"x"}\n' });
    const result = await runCli(repo, [
      'run',
      'do something',
      '--dry-run',
      '--agent',
      'command',
      '--agent-cmd',
      'true',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Biggest risk: no quality gates found: claims can only be checked by inspection');
  });

  it('--dry-run --json prints the plan as one JSON object', async () => {
    const { repo } = await calcRepo();
    const result = await runCli(repo, ['run', 'x', '--dry-run', '--json', '--agent', 'command', '--agent-cmd', 'true']);
    const parsed = JSON.parse(result.stdout) as {
      type: string;
      plan: { gates: Array<{ command: string }>; mode: string };
    };
    expect(parsed.type).toBe('plan');
    expect(parsed.plan.mode).toBe('task');
    expect(parsed.plan.gates.map((g) => g.command)).toEqual(['npm test']);
  });

  it('an invalid prd.json exits 2 naming the file, every bad field and the fix, and writes nothing', async () => {
    const prd = JSON.parse(
      prdText([
        { id: 'US-001', title: 'A' },
        { id: 'US-002', title: 'B' },
      ]),
    );
    prd.userStories[1].passes = 'no';
    prd.userStories[0].dependsOn = ['US-404'];
    const { repo } = await calcRepo({ 'prd.json': JSON.stringify(prd, null, 2) });
    const result = await runCli(repo, ['run', '--prd', 'prd.json', '--agent', 'command', '--agent-cmd', 'true']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('prd.json: userStories[1].passes:');
    expect(result.stderr).toContain('use true or false without quotes');
    expect(result.stderr).toContain('(exit 2)');
    expect(existsSync(join(repo, '.star'))).toBe(false);
  });

  it('names an unknown dependency, and says what to do about "tasks" instead of "userStories"', async () => {
    const { repo } = await calcRepo({
      'bad-dep.json': JSON.stringify({
        userStories: [{ id: 'US-001', title: 'A', passes: false, dependsOn: ['US-404'] }],
      }),
      'tasks.json': JSON.stringify({ tasks: [{ id: 'T-1', title: 'A', status: 'open' }] }),
    });
    const dep = await runCli(repo, ['run', '--prd', 'bad-dep.json', '--dry-run']);
    expect(dep.exitCode).toBe(2);
    expect(dep.stderr).toContain('bad-dep.json: userStories[0].dependsOn[0]: unknown story id "US-404"');
    const tasks = await runCli(repo, ['run', '--prd', 'tasks.json', '--dry-run']);
    expect(tasks.exitCode).toBe(2);
    expect(tasks.stderr).toContain('found "tasks" where star-loop expects "userStories"');
  });

  it('a missing prd file, bad flags and an unknown agent are usage errors (exit 2)', async () => {
    const { repo } = await calcRepo();
    expect((await runCli(repo, ['run', '--prd', 'nope.json'])).stderr).toContain('nope.json: no such file');
    expect((await runCli(repo, ['run', '--prd', 'nope.json'])).exitCode).toBe(2);
    const badN = await runCli(repo, ['run', 'x', '--max-iterations', 'lots']);
    expect(badN.exitCode).toBe(2);
    expect(badN.stderr).toContain('--max-iterations: expected a whole number above 0, got "lots"');
    const badTime = await runCli(repo, ['run', 'x', '--max-time', 'soon']);
    expect(badTime.stderr).toContain('--max-time: expected a duration such as 90s, 45m or 8h');
    const agent = await runCli(repo, ['run', 'x', '--agent', 'hal9000']);
    expect(agent.exitCode).toBe(2);
    expect(agent.stderr).toContain('--agent hal9000: unknown agent');
    const unknownFlag = await runCli(repo, ['run', 'x', '--max-iteration', '3']);
    expect(unknownFlag.exitCode).toBe(2);
    const noRoom = await runCli(repo, ['run', 'x', '--max-iterations', '1']);
    expect(noRoom.exitCode).toBe(2);
    expect(noRoom.stderr).toContain('--max-iterations 1 leaves no room to verify a claim');
    const nothing = await runCli(repo, ['run']);
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toContain('nothing to do');
  });

  it('star.config.json: its gates replace discovery, flags win over it, and a bad key is exit 2', async () => {
    const { repo } = await calcRepo({
      'star.config.json': JSON.stringify({
        gates: [{ name: 'smoke', command: 'test -f package.json' }],
        maxIterations: 7,
      }),
    });
    const dry = await runCli(repo, [
      'run',
      'x',
      '--dry-run',
      '--agent',
      'command',
      '--agent-cmd',
      'true',
      '--max-iterations',
      '9',
    ]);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain('- smoke (other): `test -f package.json`  [star.config.json]');
    expect(dry.stdout).not.toContain('npm test');
    expect(dry.stdout).toContain('at most 9 iterations');
    const fromConfig = await runCli(repo, ['run', 'x', '--dry-run', '--agent', 'command', '--agent-cmd', 'true']);
    expect(fromConfig.stdout).toContain('at most 7 iterations');
    expect(fromConfig.stdout).toContain('Safety: git push blocked; protected paths .env*, .github/workflows/**;');

    const { repo: custom } = await calcRepo({
      'star.config.json': JSON.stringify({ protectedPaths: ['secrets/**'], protect: ['db/migrations/**'] }),
    });
    const replaced = await runCli(custom, [
      'run',
      'x',
      '--dry-run',
      '--agent',
      'command',
      '--agent-cmd',
      'true',
      '--protect',
      'docs/**',
    ]);
    expect(replaced.stdout).toContain('protected paths secrets/**, db/migrations/**, docs/**;');

    const { repo: bad } = await calcRepo({ 'star.config.json': JSON.stringify({ maxIteration: 3 }) });
    const result = await runCli(bad, ['run', 'x', '--dry-run']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('star.config.json');
    expect(result.stderr).toContain('maxIteration');
  });

  it('outside a git repository: exit 2 with what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'star-loop-nogit-'));
    const result = await runCli(dir, ['run', 'x', '--dry-run']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('is not inside a git repository');
  });

  it('refuses to start (exit 4) when the agent executable is not on PATH', async () => {
    const { repo } = await calcRepo();
    const result = await runCli(repo, ['run', 'x', '--agent', 'claude'], { PATH: '/usr/bin:/bin' });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('`claude` was not found on PATH');
  });

  it('--help lists the exit codes; --version prints the version', async () => {
    const { repo } = await calcRepo();
    const help = await runCli(repo, ['--help']);
    expect(help.exitCode).toBe(0);
    for (const line of [
      '0  all work complete and verified',
      '3  a budget ran out',
      '4  paused or refused',
      '5  aborted by a safety violation',
      '6  stopped by the user',
    ]) {
      expect(help.stdout).toContain(line);
    }
    const runHelp = await runCli(repo, ['run', '--help']);
    expect(runHelp.stdout).toContain('--stall-after <n>');
    const version = await runCli(repo, ['--version']);
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(version.stdout.trim()).toBe(pkg.version);
  });
});
