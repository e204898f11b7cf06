import { at, type Gate, type GateDiscoverer, lineOf } from '../gate.js';

/** pytest, ruff and mypy, each declared by its own `[tool.*]` section in pyproject.toml. */
const TOOLS = [
  { section: /^\[tool\.mypy\]/, gate: { name: 'mypy', command: 'mypy .', kind: 'typecheck' as const } },
  { section: /^\[tool\.ruff(\.lint)?\]/, gate: { name: 'ruff', command: 'ruff check .', kind: 'lint' as const } },
  {
    section: /^\[tool\.pytest\.ini_options\]/,
    gate: { name: 'pytest', command: 'python -m pytest', kind: 'test' as const },
  },
];

export const pyprojectDiscoverer: GateDiscoverer = {
  name: 'pyproject.toml',
  async discover(files) {
    const text = await files.read('pyproject.toml');
    if (!text) return [];
    const gates: Gate[] = [];
    for (const { section, gate } of TOOLS) {
      const line = lineOf(text, section);
      if (line) gates.push({ ...gate, source: at('pyproject.toml', line) });
    }
    return gates;
  },
};
