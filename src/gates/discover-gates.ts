import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GateSpec } from '../config/config-schema.js';
import { gateDiscoverers } from './discoverers/index.js';
import { type Gate, type GateDiscoverer, gateOrder, kindOf, type RepoFiles } from './gate.js';
import { normalizeCommand } from './looks-like-gate.js';

export function repoFiles(root: string): RepoFiles {
  return {
    async read(path) {
      try {
        return await readFile(join(root, path), 'utf8');
      } catch {
        return undefined;
      }
    },
    async list(dir) {
      try {
        return await readdir(join(root, dir));
      } catch {
        return [];
      }
    },
  };
}

/** Merges discoverers' findings: one gate per command, the first source wins, cheap kinds first. */
export function mergeGates(found: Gate[][]): Gate[] {
  const seen = new Set<string>();
  const gates: Gate[] = [];
  for (const gate of found.flat()) {
    const key = normalizeCommand(gate.command);
    if (seen.has(key)) continue;
    seen.add(key);
    gates.push(gate);
  }
  return gates.sort(gateOrder);
}

/**
 * The project's real quality gates, read from its own files; `gates` in star.config.json replaces
 * discovery entirely (the user knows best).
 */
export async function discoverGates(
  root: string,
  configured?: GateSpec[],
  discoverers: readonly GateDiscoverer[] = gateDiscoverers,
): Promise<Gate[]> {
  if (configured) {
    return configured.map((g) => ({
      name: g.name,
      command: g.command,
      kind: kindOf(`${g.name} ${g.command}`),
      source: 'star.config.json',
    }));
  }
  const files = repoFiles(root);
  return mergeGates(await Promise.all(discoverers.map((d) => d.discover(files))));
}
