import { cpSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { discoverGates } from '../../src/gates/discover-gates.js';
import { runGatesOn } from '../../src/gates/run-gates.js';
import { Git } from '../../src/git/git.js';
import { git, gitdir } from '../helpers/gitdir.js';
import { missingTools } from '../helpers/needs-tools.js';
import { runCli } from '../helpers/run-cli.js';

/**
 * Real open-source projects (test/fixtures/projects/README.md): what recon must find in each, exactly, and
 * must not (fixers, releases, publishing, networked commands); and each one's test suite, as found, passes
 * at the baseline on this machine.
 */
const ROOT = join(import.meta.dirname, '../fixtures/projects');

interface Project {
  name: string;
  /** What its suite needs on PATH (NOT RUN without it, by name). */
  needs: string[];
  /** Installs from the npm registry before recon, as a user would after cloning. */
  setup?: 'pnpm' | 'mocha';
  gates: string[];
  dropped: string[];
}

/** The machine recon is shown, so what it finds does not depend on this one's extras. */
const TOOLS = new Set(['sh', 'node', 'npm', 'npx', 'pnpm', 'python3', 'pytest', 'cargo', 'go', 'make', 'git']);
const PYTHON_MODULES = new Set(['pytest']);
/** Never a gate: commands that fix, format, release, publish, deploy, or fetch what they run. */
const NEVER =
  /\bfix\b|--write|\bformat\b|release|publish|deploy|upload|\buvx?\b|\btox\b|\bnox\b|\bhatch\b|twine|\bbuild\b.*wheel/;

const projects: Project[] = ['defu', 'is-number', 'toolz', 'six', 'semver-rs', 'go-cmp'].map((name) => ({
  name,
  ...(JSON.parse(readFileSync(join(ROOT, name, 'expected.json'), 'utf8')) as Omit<Project, 'name'>),
}));

/** pnpm, installed from the npm registry into a folder of the test's own (once). */
let pnpmDir: Promise<string> | undefined;
function pnpm(): Promise<string> {
  pnpmDir ??= (async () => {
    const prefix = await mkdtemp(join(tmpdir(), 'star-loop-pnpm-'));
    await execa('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', 'pnpm@10.33.0']);
    return join(prefix, 'node_modules', '.bin');
  })();
  return pnpmDir;
}

async function checkout(project: Project): Promise<{ repo: string; env: NodeJS.ProcessEnv }> {
  const files = join(ROOT, project.name, 'files');
  const repo = await gitdir({});
  cpSync(files, repo, { recursive: true });
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', `${project.name} as vendored`);
  let env: NodeJS.ProcessEnv = { ...process.env };
  if (project.setup === 'pnpm') {
    const bin = await pnpm();
    env = { ...env, PATH: `${bin}${delimiter}${env.PATH ?? ''}` };
    await execa('pnpm', ['install', '--frozen-lockfile', '--reporter=silent'], { cwd: repo, env });
  }
  if (project.setup === 'mocha') {
    // Its package.json also names benchmark and docs tools; the suite needs its test runner alone.
    await execa('npm', ['install', '--no-save', '--no-audit', '--no-fund', 'mocha@3.5.3'], { cwd: repo, env });
  }
  return { repo, env };
}

describe('real projects: the gates recon finds, and their suites green at the baseline', () => {
  for (const project of projects) {
    const missing = missingTools(project.needs);
    if (missing.length > 0) {
      process.stderr.write(`NOT RUN (${missing.join(', ')} not on PATH): real project ${project.name}\n`);
      it.skip(`${project.name} — NOT RUN: ${missing.join(', ')} not on PATH`, () => {});
      continue;
    }
    it.concurrent(`${project.name}`, async () => {
      const { repo, env } = await checkout(project);
      const found = await discoverGates(repo, undefined, {
        env,
        facts: { hasTool: (n) => TOOLS.has(n), pythonModules: PYTHON_MODULES },
      });
      expect(found.gates.map((g) => `${g.kind} | ${g.command} | ${g.source}`)).toEqual(project.gates);
      expect(found.dropped.map((d) => `${d.command} [${d.source}]: ${d.reason}`)).toEqual(project.dropped);
      for (const gate of found.gates) expect(gate.command).not.toMatch(NEVER);

      // The suite, as star-loop runs it: on a clean copy of the commit, with the project's dependencies.
      const tests = found.gates.filter((g) => g.kind === 'test');
      expect(tests.length).toBeGreaterThan(0);
      const head = await git(repo, 'rev-parse', 'HEAD');
      const dependencyDirs = ['node_modules'].filter((d) => existsSync(join(repo, d)));
      const run = await runGatesOn(tests, {
        git: new Git(repo),
        dependencyRoot: repo,
        dependencyDirs,
        hosts: [],
        env,
        timeoutMs: 600_000,
        commit: head,
        logFile: join(repo, '..', `${project.name}-${repo.split('/').at(-1)}-baseline.log`),
      });
      const log = readFileSync(join(repo, '..', `${project.name}-${repo.split('/').at(-1)}-baseline.log`), 'utf8');
      expect(
        run.results.map((r) => `${r.name}: ${r.status}`),
        log.slice(-3000),
      ).toEqual(tests.map((g) => `${g.name}: pass`));
      for (const result of run.results) expect(result.tests?.evidence).not.toBe('exit-code');

      // And the plan a user sees names them.
      const dry = await runCli(repo, ['run', '--dry-run', '--agent', 'command', '--agent-cmd', 'true', 'task'], {
        PATH: env.PATH ?? '',
      });
      for (const gate of tests) expect(dry.stdout).toContain(`[${gate.source}]`);
    }, 900_000);
  }
});
