import { at, type Gate, type GateDiscoverer, kindOf } from '../gate.js';

const TARGETS = ['check', 'typecheck', 'lint', 'test', 'build'];

/** Targets named like gates in a Makefile or justfile: `test:` → `make test` / `just test`. */
function targetGates(text: string, file: string, tool: string, targetPattern: (t: string) => RegExp): Gate[] {
  const lines = text.split('\n');
  const gates: Gate[] = [];
  for (const target of TARGETS) {
    const index = lines.findIndex((l) => targetPattern(target).test(l));
    if (index === -1) continue;
    gates.push({ name: target, command: `${tool} ${target}`, kind: kindOf(target), source: at(file, index + 1) });
  }
  return gates;
}

export const makefileDiscoverer: GateDiscoverer = {
  name: 'Makefile',
  async discover(files) {
    for (const file of ['GNUmakefile', 'Makefile', 'makefile']) {
      const text = await files.read(file);
      // `test:` but not `test := value` (a variable).
      if (text) return targetGates(text, file, 'make', (t) => new RegExp(`^${t}\\s*:(?!=)`));
    }
    return [];
  },
};

export const justfileDiscoverer: GateDiscoverer = {
  name: 'justfile',
  async discover(files) {
    for (const file of ['justfile', 'Justfile', '.justfile']) {
      const text = await files.read(file);
      // `test:` or `test *args:` but not `test := value`.
      if (text) return targetGates(text, file, 'just', (t) => new RegExp(`^@?${t}(\\s+[^:=]*)?\\s*:(?!=)`));
    }
    return [];
  },
};
