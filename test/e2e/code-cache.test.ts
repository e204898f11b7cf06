import { cp, mkdir, mkdtemp, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { sandboxIt } from '../helpers/needs-sandbox.js';
import { runCli, scriptedAgent, TEST_STATE_HOME } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A copy of the built package (bin, dist, prompts): its bundle is a file of its own, with a cache of its own. */
async function installedCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-code-cache-'));
  for (const part of ['bin', 'dist', 'prompts', 'package.json'])
    await cp(join(ROOT, part), join(dir, part), { recursive: true });
  return dir;
}

async function star(copy: string, args: string[], env: Record<string, string>, cwd = copy) {
  const result = await execa(process.execPath, [join(copy, 'bin', 'star-loop.js'), ...args], {
    cwd,
    env: { NO_COLOR: '1', XDG_STATE_HOME: TEST_STATE_HOME, ...env },
    reject: false,
  });
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

const cacheFiles = async (dir: string) => (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.v8'));

describe("the CLI bundle through V8's code cache", () => {
  it('writes the cache on the first run, starts from it after, and answers the same', async () => {
    const copy = await installedCopy();
    const cache = join(copy, 'cache');
    const first = await star(copy, ['schema', 'prd'], { STAR_LOOP_CODE_CACHE: cache });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain('"userStories"');
    const [file] = await cacheFiles(cache);
    expect(file).toMatch(/^cli-[0-9a-f]{24}\.v8$/);
    const written = await stat(join(cache, file as string));
    expect(written.size).toBeGreaterThan(100_000);
    expect(written.mode & 0o777).toBe(0o600);
    expect((await stat(cache)).mode & 0o777).toBe(0o700);

    // A cache V8 took is left as it is; one it rejected would be written again as the process exits.
    const second = await star(copy, ['schema', 'prd'], { STAR_LOOP_CODE_CACHE: cache });
    expect(second).toEqual(first);
    const after = await stat(join(cache, file as string));
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    expect(await cacheFiles(cache)).toEqual([file]);
  });

  it("a run reaching its first agent rewrites a shorter command's cache once, with the run's path", async () => {
    const copy = await installedCopy();
    const cache = join(copy, 'cache');
    const { repo, aux } = await calcRepo();
    const agent = await scriptedAgent(aux, {});
    const run = ['run', 'add a subtract function', '--agent-cmd', agent.cmd, '--max-iterations', '2'];
    // The kind byte after the digest: 0 written as a command exited, 1 when a run reached its first agent.
    const kind = async (file: string) => (await readFile(join(cache, file)))[32];

    await star(copy, ['--help'], { STAR_LOOP_CODE_CACHE: cache });
    const [file] = await cacheFiles(cache);
    const name = file as string;
    expect(await kind(name)).toBe(0);
    const helpSize = (await stat(join(cache, name))).size;

    const first = await star(copy, [...run, '--sandbox', 'off'], { STAR_LOOP_CODE_CACHE: cache }, repo);
    expect(first.stderr).not.toContain('star-loop: ');
    expect((await agent.calls()).length).toBeGreaterThan(0);
    expect(await cacheFiles(cache)).toEqual([name]);
    expect(await kind(name)).toBe(1);
    const written = await stat(join(cache, name));
    expect(written.size).toBeGreaterThan(helpSize * 1.5);

    // Written once a build: later runs and shorter commands start from it and leave it as it is.
    await star(copy, [...run, '--sandbox', 'off'], { STAR_LOOP_CODE_CACHE: cache }, repo);
    await star(copy, ['--help'], { STAR_LOOP_CODE_CACHE: cache });
    const after = await stat(join(cache, name));
    expect([after.ino, after.mtimeMs, after.size]).toEqual([written.ino, written.mtimeMs, written.size]);
  });

  it('a corrupt cache costs a compile: the run is the same and the cache is written again', async () => {
    const copy = await installedCopy();
    const cache = join(copy, 'cache');
    const clean = await star(copy, ['run', '--prd', 'missing.json'], { STAR_LOOP_CODE_CACHE: cache });
    const [file] = await cacheFiles(cache);
    const path = join(cache, file as string);
    const good = await readFile(path);
    const bad = Buffer.from(good);
    bad.fill(0x5a, 64, 4096);
    await writeFile(path, bad);
    const again = await star(copy, ['run', '--prd', 'missing.json'], { STAR_LOOP_CODE_CACHE: cache });
    expect(again).toEqual(clean);
    expect(clean.exitCode).not.toBe(0);
    expect((await readFile(path)).equals(bad)).toBe(false);
  });

  it('a cache folder that cannot be written changes nothing: same output, same exit code, nothing on stderr', async () => {
    const copy = await installedCopy();
    const blocker = join(copy, 'not-a-folder');
    await writeFile(blocker, 'a file where the cache folder would go\n');
    const off = await star(copy, ['schema', 'prd'], { STAR_LOOP_CODE_CACHE: 'off' });
    const blocked = await star(copy, ['schema', 'prd'], { STAR_LOOP_CODE_CACHE: join(blocker, 'cache') });
    expect(blocked).toEqual(off);
    expect(blocked.stderr).toBe('');
    const missing = await star(copy, ['run', '--prd', 'missing.json'], { STAR_LOOP_CODE_CACHE: join(blocker, 'c') });
    expect(missing.exitCode).toBe(
      (await star(copy, ['run', '--prd', 'missing.json'], { STAR_LOOP_CODE_CACHE: 'off' })).exitCode,
    );
  });

  it('goes to $XDG_CACHE_HOME/star-loop by default, nowhere with STAR_LOOP_CODE_CACHE=off', async () => {
    const copy = await installedCopy();
    const xdg = join(copy, 'xdg');
    const home = join(copy, 'home');
    await mkdir(home);
    await star(copy, ['--help'], { STAR_LOOP_CODE_CACHE: 'off', XDG_CACHE_HOME: xdg, HOME: home });
    expect(await readdir(home)).toEqual([]);
    expect(await cacheFiles(join(xdg, 'star-loop'))).toEqual([]);
    await star(copy, ['--help'], { STAR_LOOP_CODE_CACHE: '', XDG_CACHE_HOME: xdg, HOME: home });
    expect(await cacheFiles(join(xdg, 'star-loop'))).toHaveLength(1);
  });

  it('keeps the newest four caches: each build of each Node writes its own', async () => {
    const copy = await installedCopy();
    const cache = join(copy, 'cache');
    await mkdir(cache);
    const old = [
      'cli-000000000000000000000001.v8',
      'cli-000000000000000000000002.v8',
      'cli-000000000000000000000003.v8',
      'cli-000000000000000000000004.v8',
    ];
    for (const [i, name] of old.entries()) {
      await writeFile(join(cache, name), 'from an older build');
      const when = new Date(Date.UTC(2026, 0, 1 + i));
      await utimes(join(cache, name), when, when);
    }
    await writeFile(join(cache, 'notes.txt'), 'not a cache file');
    await star(copy, ['--help'], { STAR_LOOP_CODE_CACHE: cache });
    const left = (await readdir(cache)).sort();
    expect(left).toHaveLength(5);
    expect(left).toContain('notes.txt');
    expect(left).not.toContain(old[0]);
    for (const name of old.slice(1)) expect(left).toContain(name);
  });

  sandboxIt('a sandboxed agent cannot plant a cache, even in a folder it may write', async () => {
    const { repo, aux } = await calcRepo();
    const cache = join(aux, 'code-cache');
    // The agent writes beside the cache (allowed) and into it (the next start would run what it wrote).
    const agent = join(aux, 'agent.sh');
    await writeFile(
      agent,
      `#!/bin/sh\ncat >/dev/null\necho allowed > '${aux}/beside.txt'\n` +
        `mkdir -p '${cache}' && echo planted > '${cache}/cli-000000000000000000000000.v8' || echo refused > '${aux}/refused.txt'\n`,
      { mode: 0o755 },
    );
    const run = await runCli(
      repo,
      ['run', 'add a subtract function', '--agent-cmd', agent, '--max-iterations', '2', '--sandbox-allow-write', aux],
      { STAR_LOOP_CODE_CACHE: cache },
    );
    expect(run.stdout).toContain('Sandbox (--sandbox auto): on: bubblewrap');
    expect(await readFile(join(aux, 'beside.txt'), 'utf8')).toBe('allowed\n');
    expect(await readFile(join(aux, 'refused.txt'), 'utf8')).toBe('refused\n');
    expect(await cacheFiles(cache)).not.toContain('cli-000000000000000000000000.v8');
  });
});
