import { at, type Gate, type GateDiscoverer, kindOf } from '../gate.js';
import { looksLikeGate } from '../looks-like-gate.js';

const DIR = '.github/workflows';

/** Each `run:` command in a workflow file with its line number; block scalars give one command a line. */
export function runCommands(text: string): Array<{ command: string; line: number }> {
  const lines = text.split('\n');
  const out: Array<{ command: string; line: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)(-\s+)?run:\s*(.*?)\s*$/.exec(lines[i] ?? '');
    if (!match) continue;
    const keyIndent = (match[1]?.length ?? 0) + (match[2]?.length ?? 0);
    const value = match[3] ?? '';
    if (/^[|>][-+]?\d*$/.test(value)) {
      for (let j = i + 1; j < lines.length; j++) {
        const body = lines[j] ?? '';
        if (body.trim() === '') continue;
        if (body.search(/\S/) <= keyIndent) break;
        out.push({ command: body.trim(), line: j + 1 });
        i = j;
      }
    } else if (value) {
      out.push({ command: value.replace(/^(['"])(.*)\1$/, '$2'), line: i + 1 });
    }
  }
  return out;
}

export const workflowsDiscoverer: GateDiscoverer = {
  name: 'GitHub workflows',
  async discover(files) {
    const gates: Gate[] = [];
    const names = (await files.list(DIR)).filter((f) => /\.ya?ml$/.test(f)).sort();
    for (const name of names) {
      const file = `${DIR}/${name}`;
      const text = await files.read(file);
      if (!text) continue;
      for (const { command, line } of runCommands(text)) {
        if (looksLikeGate(command))
          gates.push({ name: command, command, kind: kindOf(command), source: at(file, line) });
      }
    }
    return gates;
  },
};
