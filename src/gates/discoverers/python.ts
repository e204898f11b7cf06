import { at, type Candidate, type GateDiscoverer, lineOf, type RepoFiles } from '../gate.js';
import { scriptLines } from '../script-lines.js';

const PYTEST = 'python -m pytest';

/** Where pytest reads its configuration, in pytest's own order: the first one found is the project's. */
const PYTEST_CONFIGS: Array<{ file: string; section: RegExp | undefined }> = [
  { file: 'pytest.ini', section: undefined },
  { file: '.pytest.ini', section: undefined },
  { file: 'pyproject.toml', section: /^\[tool\.pytest(\.ini_options)?\]\s*$/ },
  { file: 'tox.ini', section: /^\[pytest\]\s*$/ },
  { file: 'setup.cfg', section: /^\[tool:pytest\]\s*$/ },
];

/** Files that name the project's test dependencies: pytest there, with a tests folder, means pytest. */
const DEPENDENCY_FILES = [
  'pyproject.toml',
  'setup.cfg',
  'setup.py',
  'requirements-dev.txt',
  'requirements-test.txt',
  'requirements_dev.txt',
  'requirements_test.txt',
  'dev-requirements.txt',
  'test-requirements.txt',
  'requirements.txt',
];

async function pytestConfig(files: RepoFiles): Promise<string | undefined> {
  for (const { file, section } of PYTEST_CONFIGS) {
    const text = await files.read(file);
    if (text === undefined) continue;
    if (!section) return at(file, lineOf(text, /^\[pytest\]/) ?? 1);
    const line = lineOf(text, section);
    if (line) return at(file, line);
  }
  return undefined;
}

/** A tox or nox command that runs a test runner directly, as star-loop runs it (no coverage wrapper). */
function directRunner(command: string): string | undefined {
  const c = command
    .replace(/^[-!]\s*/, '')
    .replace(/\{posargs(?::([^}]*))?\}/g, (_, fallback: string | undefined) => fallback ?? '')
    .replace(/\{toxinidir\}\/?/g, './')
    .replace(/\{envpython\}/g, 'python')
    .replace(/\s+/g, ' ')
    .trim();
  if (/\{[^}]*\}/.test(c)) return undefined;
  const pytest = /^(?:(?:python3?|coverage run(?: \S+)*?) -m pytest|pytest|py\.test)\b(.*)$/.exec(c);
  if (pytest) return `${PYTEST}${pytest[1] ?? ''}`.trim();
  if (/^python3? -m unittest\b/.test(c)) return c.replace(/^python3? /, 'python ');
  return undefined;
}

/** tox.ini's `[testenv]` commands that run a test runner; else tox itself, which needs the network. */
function toxGates(text: string): Candidate[] {
  const lines = text.split('\n');
  const gates: Candidate[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) section = header[1] ?? '';
    if (!/^testenv\b/.test(section) || !/^commands\s*=/.test(line)) continue;
    const body = [line.replace(/^commands\s*=\s*/, '')];
    while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1] ?? '')) body.push((lines[++i] ?? '').trim());
    const first = i + 2 - body.length;
    for (const { command, offset } of scriptLines(body.join('\n'))) {
      const direct = directRunner(command);
      if (direct && !gates.some((g) => g.command === direct))
        gates.push({ name: 'pytest', command: direct, kind: 'test', source: at('tox.ini', first + offset) });
    }
    if (gates.length > 0) return gates;
  }
  if (!/^\[testenv/m.test(text)) return [];
  const env = /^envlist\s*=\s*([\w.-]+)/m.exec(text)?.[1] ?? 'py';
  return [
    {
      name: 'tox',
      command: `tox -e ${env}`,
      kind: 'test',
      source: at('tox.ini', lineOf(text, /^\[testenv/)),
      drop: 'tox builds its environments with packages from the network; star-loop found no test command in it',
    },
  ];
}

function noxGates(text: string): Candidate[] {
  const line = lineOf(text, /session\.run\(\s*["'](pytest|python)["']/);
  if (line && /session\.run\(\s*["']pytest["']|["']-m["'],\s*["']pytest["']/.test(text))
    return [{ name: 'pytest', command: PYTEST, kind: 'test', source: at('noxfile.py', line) }];
  return [
    {
      name: 'nox',
      command: 'nox',
      kind: 'test',
      source: 'noxfile.py',
      drop: 'nox builds its environments with packages from the network; star-loop found no test command in it',
    },
  ];
}

/** pytest named as a dependency, with a tests folder beside: the project's suite, without a config. */
async function pytestByDependency(files: RepoFiles): Promise<Candidate[]> {
  const top = await files.list('.');
  if (!top.some((f) => f === 'tests' || f === 'test') && !top.some((f) => /^test_.*\.py$/.test(f))) return [];
  for (const file of DEPENDENCY_FILES) {
    const text = await files.read(file);
    const line = text === undefined ? undefined : lineOf(text, /(^|["'\s,[])pytest\b(?![-_.])/);
    if (line) return [{ name: 'pytest', command: PYTEST, kind: 'test', source: at(file, line) }];
  }
  return [];
}

/**
 * Python's gates: mypy and ruff by their pyproject sections; the test suite by pytest's configuration
 * (pytest.ini, `[tool.pytest]`/`[tool.pytest.ini_options]`, tox.ini `[pytest]`, setup.cfg `[tool:pytest]`),
 * else by the runner tox or nox environments call, else by pytest among the test dependencies.
 */
export const pythonDiscoverer: GateDiscoverer = {
  name: 'Python',
  async discover(files) {
    const gates: Candidate[] = [];
    const pyproject = (await files.read('pyproject.toml')) ?? '';
    const mypy = lineOf(pyproject, /^\[tool\.mypy\]/);
    if (mypy) gates.push({ name: 'mypy', command: 'mypy .', kind: 'typecheck', source: at('pyproject.toml', mypy) });
    const ruff = lineOf(pyproject, /^\[tool\.ruff(\.lint)?\]/);
    if (ruff) gates.push({ name: 'ruff', command: 'ruff check .', kind: 'lint', source: at('pyproject.toml', ruff) });
    const config = await pytestConfig(files);
    if (config) return [...gates, { name: 'pytest', command: PYTEST, kind: 'test', source: config }];
    const tox = await files.read('tox.ini');
    const fromTox = tox ? toxGates(tox) : [];
    if (fromTox.some((g) => !g.drop)) return [...gates, ...fromTox];
    const nox = await files.read('noxfile.py');
    const fromNox = nox ? noxGates(nox) : [];
    if (fromNox.some((g) => !g.drop)) return [...gates, ...fromNox];
    const byDependency = await pytestByDependency(files);
    return [...gates, ...(byDependency.length > 0 ? byDependency : [...fromTox, ...fromNox])];
  },
};
