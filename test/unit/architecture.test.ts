import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

async function sources(dir = SRC): Promise<Array<{ file: string; text: string }>> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts')) out.push({ file: relative(SRC, path), text: await readFile(path, 'utf8') });
  }
  return out;
}

/** Who may import what: one owner for git, one for child processes, one for the logger. */
const OWNERS: Array<[RegExp, (file: string) => boolean]> = [
  // git runs through src/proc/run-capture.ts (plain execFile) from src/git/ only; nothing loads simple-git.
  [/from 'simple-git'/, () => false],
  [/from 'execa'/, (f) => f.startsWith('proc/')],
  [/from 'pino'/, (f) => f.startsWith('log/')],
  [/from 'node:child_process'/, (f) => f === 'demo/demo-agent.ts' || f.startsWith('proc/')],
];

describe('architecture rules', async () => {
  const files = await sources();

  it.each(OWNERS)('%s is imported only by its owner', (pattern, allowed) => {
    const offenders = files.filter((f) => pattern.test(f.text) && !allowed(f.file)).map((f) => f.file);
    expect(offenders).toEqual([]);
  });

  it('no console.* outside the CLI entry (terminal output goes through report/terminal-output.ts)', () => {
    expect(files.filter((f) => /\bconsole\./.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it('only the CLI entry ends the process', () => {
    // The demo agent is a program of its own, not part of the runner.
    expect(files.filter((f) => /process\.exit\(/.test(f.text) && f.file !== 'demo/demo-agent.ts').map((f) => f.file)).toEqual([]);
  });

  it('star-loop never reverts, resets, stashes or cleans: no such git verb appears in the git owner', () => {
    const gitOwner = files
      .filter((f) => f.file.startsWith('git/'))
      .map((f) => f.text)
      .join('\n');
    for (const verb of ['reset', 'stash', 'clean', 'revert', 'checkout', 'restore', 'push', 'rebase']) {
      expect(gitOwner).not.toMatch(new RegExp(`['"]${verb}['"]`));
    }
  });
});
