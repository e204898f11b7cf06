import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { discoverGates } from '../../src/gates/discover-gates.js';
import { gitdir } from '../helpers/gitdir.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/gates/${name}/`, import.meta.url));
const shape = ({ gates }: Awaited<ReturnType<typeof discoverGates>>) =>
  gates.map((g) => `${g.kind} | ${g.command} | ${g.source}`);
/** Every program on PATH: what is found does not depend on this machine (one test checks the opposite). */
const everywhere = { facts: { hasTool: () => true } };

describe('gate discovery reads the project’s own files (one discoverer per ecosystem)', () => {
  it.each([
    [
      'npm',
      [
        'typecheck | npm run typecheck | package.json:6',
        'lint | npm run lint | package.json:5',
        'build | npm run build | package.json:4',
        'test | npm test | package.json:7',
      ],
    ],
    // pnpm from the lockfile; npm's "no test specified" placeholder is not a gate.
    ['pnpm', ['lint | pnpm lint | package.json:5']],
    // `build := fast` is a variable, not a target; `install` is not a gate.
    ['makefile', ['lint | make lint | Makefile:11', 'test | make test | Makefile:8']],
    ['justfile', ['test | just test | justfile:7', 'other | just check | justfile:4']],
    [
      'pyproject',
      [
        'typecheck | mypy . | pyproject.toml:7',
        'lint | ruff check . | pyproject.toml:4',
        'test | python -m pytest | pyproject.toml:10',
      ],
    ],
    ['cargo', ['lint | cargo clippy --all-targets | Cargo.toml:1', 'test | cargo test | Cargo.toml:1']],
    ['go', ['typecheck | go vet ./... | go.mod:1', 'test | go test ./... | go.mod:1']],
    // `npm run test` in CI is package.json's `npm test`: one gate, its first source.
    [
      'workflows',
      [
        'typecheck | npx tsc --noEmit | .github/workflows/ci.yml:13',
        'lint | npm run lint | .github/workflows/ci.yml:12',
        'test | npm test | package.json:4',
      ],
    ],
    [
      'contributing',
      ['lint | make lint | CONTRIBUTING.md:12', 'test | python -m pytest -x tests/ | CONTRIBUTING.md:13'],
    ],
    ['none', []],
  ])('%s', async (name, expected) => {
    expect(shape(await discoverGates(fixture(name), undefined, everywhere))).toEqual(expected);
  });

  it('`gates` in star.config.json replaces discovery', async () => {
    const gates = await discoverGates(fixture('npm'), [{ name: 'e2e', command: 'make e2e' }]);
    expect(shape(gates)).toEqual(['other | make e2e | star.config.json']);
  });
});

describe('discovery finds the suite wherever the project declares it', () => {
  const found = async (files: Record<string, string>, hasTool: (n: string) => boolean = () => true) => {
    const d = await discoverGates(await gitdir(files), undefined, { facts: { hasTool } });
    return { gates: shape(d), dropped: d.dropped.map((x) => `${x.command} [${x.source}]: ${x.reason}`) };
  };

  it.each([
    [
      'pytest 9’s [tool.pytest]',
      { 'pyproject.toml': '[project]\nname = "x"\n\n[tool.pytest]\nminversion = "9.0"\n' },
      'pyproject.toml:4',
    ],
    ['pytest.ini', { 'pytest.ini': '[pytest]\naddopts = -ra\n' }, 'pytest.ini:1'],
    ['.pytest.ini (python-semver’s)', { '.pytest.ini': '[pytest]\ntestpaths = tests\n' }, '.pytest.ini:1'],
    [
      'setup.cfg [tool:pytest]',
      { 'setup.cfg': '[metadata]\nname = x\n[tool:pytest]\ntestpaths = tests\n' },
      'setup.cfg:3',
    ],
    ['tox.ini [pytest]', { 'tox.ini': '[tox]\nenvlist = py311\n[pytest]\naddopts = -q\n' }, 'tox.ini:3'],
    [
      'pytest among the test dependencies, with a tests folder',
      {
        'pyproject.toml':
          '[project]\nname = "x"\n[project.optional-dependencies]\ntest = ["pytest>=7", "hypothesis"]\n',
        'tests/test_x.py': 'def test_x():\n    pass\n',
      },
      'pyproject.toml:4',
    ],
  ])('%s', async (_, files, source) => {
    expect((await found(files)).gates).toEqual([`test | python -m pytest | ${source}`]);
  });

  it('tox environments: the runner their commands call (a fallback), else tox itself, left out', async () => {
    const tox =
      '[tox]\nenvlist = py311, lint\n\n[testenv]\ndeps = pytest\ncommands =\n    coverage run -m pytest {posargs:tests}\n';
    expect((await found({ 'tox.ini': tox })).gates).toEqual(['test | python -m pytest tests | tox.ini:7']);
    const opaque = '[tox]\nenvlist = py311\n[testenv]\ncommands = {envbindir}/run-tests\n';
    expect(await found({ 'tox.ini': opaque })).toEqual({
      gates: [],
      dropped: [
        'tox -e py311 [tox.ini:3]: tox builds its environments with packages from the network; star-loop found no ' +
          'test command in it',
      ],
    });
  });

  it('nox sessions that run pytest', async () => {
    const nox =
      'import nox\n\n@nox.session\ndef tests(session):\n    session.install(".")\n    session.run("pytest", "-q")\n';
    expect((await found({ 'noxfile.py': nox })).gates).toEqual(['test | python -m pytest | noxfile.py:6']);
  });

  it('nextest when configured, Maven and Gradle through their wrappers, offline', async () => {
    expect((await found({ 'Cargo.toml': '[package]\nname = "x"\n', '.config/nextest.toml': '' })).gates).toEqual([
      'lint | cargo clippy --all-targets | Cargo.toml:1',
      'test | cargo nextest run | .config/nextest.toml',
    ]);
    expect((await found({ 'pom.xml': '<?xml version="1.0"?>\n<project>\n</project>\n' })).gates).toEqual([
      'test | mvn -B -o test | pom.xml:2',
    ]);
    expect((await found({ 'build.gradle.kts': '', gradlew: '#!/bin/sh\n' })).gates).toEqual([
      'test | ./gradlew test --offline | build.gradle.kts',
    ]);
  });

  it('a workflow’s `pnpm vitest` is a test gate; its fix and release steps are not gates', async () => {
    const workflow = [
      'jobs:',
      '  ci:',
      '    steps:',
      '      - uses: autofix-ci/action@v1',
      '        with:',
      '          run: pnpm lint:fix',
      '      - run: |',
      '          pnpm lint:fix',
      '          pnpm vitest run --coverage',
      '      - run: pnpm publish',
      '',
    ].join('\n');
    const out = await found({
      'package.json': '{"scripts": {"lint:fix": "eslint --fix ."}}\n',
      'pnpm-lock.yaml': 'lockfileVersion: 9\n',
      '.github/workflows/ci.yml': workflow,
    });
    expect(out.gates).toEqual(['test | pnpm vitest run --coverage | .github/workflows/ci.yml:9']);
    expect(out.dropped).toEqual([
      'pnpm lint:fix [.github/workflows/ci.yml:8]: the script "lint:fix" fixes or formats files by its name',
    ]);
  });

  it('ruff whose project config says `fix = true` runs with --no-fix', async () => {
    const pyproject = '[tool.ruff]\nline-length = 100\nfix = true\n\n[tool.ruff.lint]\nselect = ["E"]\n';
    expect((await found({ 'pyproject.toml': pyproject })).gates).toEqual([
      'lint | ruff check --no-fix . | pyproject.toml:1',
    ]);
  });

  it('a program that is not on PATH: the gate is left out and says why', async () => {
    const out = await found({ justfile: 'test:\n    cargo test\n' }, (n) => n !== 'just');
    expect(out).toEqual({ gates: [], dropped: ['just test [justfile:1]: `just` is not on PATH: gate skipped'] });
  });
});
