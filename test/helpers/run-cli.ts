import { chmod, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/** Where the e2e tests' star-loop keeps its evidence stores (XDG_STATE_HOME). */
export const TEST_STATE_HOME = join(tmpdir(), 'star-loop-test-state');

export const BIN = fileURLToPath(new URL('../../bin/star-loop.js', import.meta.url));
export const SCRIPTED_AGENT = fileURLToPath(new URL('./scripted-agent.mjs', import.meta.url));

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Folders the stand-in agents write outside the repository (their scenario's call counters and logs): a
 * user whose agent writes outside the work tree allows it the same way, with --sandbox-allow-write.
 */
const agentDirs = new Set<string>();

/**
 * `args` with --sandbox-allow-write for the stand-in agents' folders, on the commands that run agents (for
 * tests that spawn the CLI themselves; runCli adds them).
 */
export function withAgentDirs(args: string[]): string[] {
  const runsAgents = args[0] === 'run' || args[0] === 'fleet';
  if (!runsAgents || args.some((a) => a === '--sandbox' || a.startsWith('--sandbox='))) return args;
  return [...args, ...[...agentDirs].flatMap((dir) => ['--sandbox-allow-write', dir])];
}

/** Spawns the built CLI (`bin/star-loop.js` → `dist/`), as a user would. */
export async function runCli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...withAgentDirs(args)], {
    cwd,
    // star-loop's evidence stores go to a temp folder, not the user's ~/.local/state.
    env: { NO_COLOR: '1', XDG_STATE_HOME: TEST_STATE_HOME, ...env },
    reject: false,
    timeout: 120_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The scripted agent, copied beside a scenario: the sandbox shows agents their own folders (allowed by
 * runCli), while a checkout of star-loop under /tmp or $HOME is hidden from them like any other.
 */
export async function agentScriptIn(dir: string): Promise<string> {
  const copy = join(dir, 'scripted-agent.mjs');
  await copyFile(SCRIPTED_AGENT, copy);
  return copy;
}

/** Writes a scenario for the scripted agent and returns the `--agent-cmd` that runs it. */
export async function scriptedAgent(
  dir: string,
  scenario: object,
  name = 'scenario',
): Promise<{ cmd: string; file: string; calls: () => Promise<Array<Record<string, unknown>>> }> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(scenario, null, 2));
  agentDirs.add(dir);
  return {
    cmd: `node ${await agentScriptIn(dir)} ${file}`,
    file,
    calls: async () =>
      (await readFile(`${file}.log.jsonl`, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** Puts a `claude` executable on PATH that is the scripted agent speaking Claude Code's stream-json. */
export async function fakeClaude(aux: string, scenarioFile: string): Promise<string> {
  const bin = join(aux, 'bin');
  await mkdir(bin, { recursive: true });
  agentDirs.add(dirname(scenarioFile));
  await writeFile(
    join(bin, 'claude'),
    `#!/bin/sh\nexec "${process.execPath}" "${await agentScriptIn(dirname(scenarioFile))}" "${scenarioFile}" "$@"\n`,
  );
  await chmod(join(bin, 'claude'), 0o755);
  return `${bin}:${process.env.PATH ?? ''}`;
}
