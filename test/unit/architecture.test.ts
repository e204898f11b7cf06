import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
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

/**
 * The floors of src/, lowest first, as docs/architecture.md draws them (its table is the rule): a module
 * imports from its own folder or from a lower floor, never from a higher one, and never from another
 * folder on its own floor.
 */
async function floorsFromDocs(): Promise<string[][]> {
  const doc = await readFile(fileURLToPath(new URL('../../docs/architecture.md', import.meta.url)), 'utf8');
  const rows = [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => ({
    floor: Number(m[1]),
    rooms: [...(m[2] ?? '').matchAll(/`([\w.-]+?)\/?`/g)].map((r) => r[1] as string),
  }));
  return rows.sort((a, b) => a.floor - b.floor).map((r) => r.rooms);
}
const FLOORS = await floorsFromDocs();

const room = (file: string) => (file.includes('/') ? (file.split('/')[0] as string) : file);
const floorOf = (file: string) => FLOORS.findIndex((rooms) => rooms.includes(room(file)));

/** Every relative import of a file (static, type-only and dynamic), as paths relative to src/. */
function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:from |import\()'(\.\.?\/[^']+)'/g)].map((m) => m[1] as string);
  return specs.map((spec) => relative(SRC, join(SRC, dirname(file), spec)).replace(/\.js$/, '.ts'));
}

/** A cycle in the import graph, as the files around it, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('architecture rules', async () => {
  const files = await sources();
  const graph = new Map(files.map((f) => [f.file, importsOf(f.file, f.text)]));

  it.each(OWNERS)('%s is imported only by its owner', (pattern, allowed) => {
    const offenders = files.filter((f) => pattern.test(f.text) && !allowed(f.file)).map((f) => f.file);
    expect(offenders).toEqual([]);
  });

  it('docs/architecture.md names the floors, each folder once', () => {
    const rooms = FLOORS.flat();
    expect(rooms.length).toBeGreaterThan(15);
    expect(new Set(rooms).size).toBe(rooms.length);
  });

  it('every folder of src/ has a floor', () => {
    expect(files.filter((f) => floorOf(f.file) < 0).map((f) => f.file)).toEqual([]);
  });

  it('no import runs up the floors, or across to another folder on the same floor', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (room(target) === room(file) || floorOf(target) < floorOf(file)) continue;
        upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('no import cycle between files', () => {
    expect(findCycle(graph)).toBeUndefined();
  });

  it('no line of src/ is longer than 120 characters (long strings go in templates or constants)', () => {
    const long = files.flatMap((f) =>
      f.text.split('\n').flatMap((line, i) => (line.length > 120 ? [`${f.file}:${i + 1}`] : [])),
    );
    expect(long).toEqual([]);
  });

  it('no console.* outside the CLI entry (terminal output goes through report/terminal-output.ts)', () => {
    expect(files.filter((f) => /\bconsole\.\w+\s*\(/.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it('only the CLI entry ends the process', () => {
    // The demo agent is a program of its own, not part of the runner.
    expect(
      files.filter((f) => /process\.exit\(/.test(f.text) && f.file !== 'demo/demo-agent.ts').map((f) => f.file),
    ).toEqual([]);
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
