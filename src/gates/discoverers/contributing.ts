import { at, type Gate, type GateDiscoverer, kindOf } from '../gate.js';
import { looksLikeGate } from '../looks-like-gate.js';

const FILES = ['CONTRIBUTING.md', '.github/CONTRIBUTING.md', 'docs/CONTRIBUTING.md'];
const SHELL_FENCE = /^\s*(```|~~~)\s*(sh|bash|shell|console|zsh)?\s*$/;

/** Commands in the shell code blocks of CONTRIBUTING.md that run tests, lint, types or a build. */
export const contributingDiscoverer: GateDiscoverer = {
  name: 'CONTRIBUTING.md',
  async discover(files) {
    for (const file of FILES) {
      const text = await files.read(file);
      if (!text) continue;
      const gates: Gate[] = [];
      let inBlock = false;
      text.split('\n').forEach((raw, i) => {
        if (/^\s*(```|~~~)/.test(raw)) {
          inBlock = !inBlock && SHELL_FENCE.test(raw);
          return;
        }
        if (!inBlock) return;
        const command = raw.trim().replace(/^\$\s+/, '');
        if (looksLikeGate(command))
          gates.push({ name: command, command, kind: kindOf(command), source: at(file, i + 1) });
      });
      return gates;
    }
    return [];
  },
};
