import { at, type Gate, type GateDiscoverer, kindOf, lineOf } from '../gate.js';

const SCRIPTS = ['typecheck', 'type-check', 'lint', 'build', 'test'] as const;
const NPM_PLACEHOLDER = /no test specified/;

/** The package manager the project uses, from its lockfile (npm when there is none). */
async function packageManager(read: (p: string) => Promise<string | undefined>): Promise<string> {
  if (await read('pnpm-lock.yaml')) return 'pnpm';
  if (await read('yarn.lock')) return 'yarn';
  if ((await read('bun.lockb')) !== undefined || (await read('bun.lock')) !== undefined) return 'bun';
  return 'npm';
}

export function scriptCommand(pm: string, script: string): string {
  if (script === 'test') return `${pm} test`;
  return pm === 'npm' || pm === 'bun' ? `${pm} run ${script}` : `${pm} ${script}`;
}

export const packageJsonDiscoverer: GateDiscoverer = {
  name: 'package.json',
  async discover(files) {
    const text = await files.read('package.json');
    if (!text) return [];
    let scripts: Record<string, unknown> = {};
    try {
      scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
    } catch {
      return [];
    }
    const pm = await packageManager((p) => files.read(p));
    const gates: Gate[] = [];
    for (const script of SCRIPTS) {
      const body = scripts[script];
      if (typeof body !== 'string' || !body.trim() || NPM_PLACEHOLDER.test(body)) continue;
      const line = lineOf(text, new RegExp(`^\\s*"${script}"\\s*:`));
      gates.push({
        name: script,
        command: scriptCommand(pm, script),
        kind: kindOf(script),
        source: at('package.json', line),
      });
    }
    return gates;
  },
};
