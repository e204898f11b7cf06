import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/**
 * The real agent CLIs, pinned to the versions ../shared/agent-clis.md describes. They are installed from
 * npm into a cache folder (never the project's dependencies) the first time the real-CLI tier runs.
 */
export const PINNED_CLIS = {
  claude: '@anthropic-ai/claude-code@2.1.197',
  codex: '@openai/codex@0.171.0',
  gemini: '@google/gemini-cli@0.61.0',
  opencode: 'opencode-ai@1.18.33',
} as const;

export const CLI_CACHE = fileURLToPath(new URL('../../node_modules/.cache/star-loop-agent-clis', import.meta.url));

/** Installs the pinned CLIs once (about 30 s, 1.1 GB) and returns the folder holding their executables. */
export async function ensureAgentClis(): Promise<string> {
  const bin = join(CLI_CACHE, 'node_modules', '.bin');
  const marker = join(CLI_CACHE, 'installed.json');
  const wanted = JSON.stringify(Object.values(PINNED_CLIS));
  const have = await readFile(marker, 'utf8').catch(() => '');
  if (have !== wanted || !Object.keys(PINNED_CLIS).every((name) => existsSync(join(bin, name)))) {
    await mkdir(CLI_CACHE, { recursive: true });
    await writeFile(join(CLI_CACHE, 'package.json'), '{"name":"star-loop-agent-clis","private":true}\n');
    // The Claude Code and opencode postinstall scripts put their native binaries in place: they must run.
    await execa(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', ...Object.values(PINNED_CLIS)],
      {
        cwd: CLI_CACHE,
        timeout: 600_000,
      },
    );
    await writeFile(marker, wanted);
  }
  return bin;
}
