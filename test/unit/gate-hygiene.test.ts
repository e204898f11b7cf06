import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/gates/gate.js';
import { checkingForm } from '../../src/gates/gate-hygiene.js';
import { cannotRun } from '../../src/gates/gate-tools.js';
import { makeTargets } from '../../src/gates/make-targets.js';
import { mergeSuites } from '../../src/gates/merge-suites.js';
import { settleGates } from '../../src/gates/settle-gates.js';

const plain = { fixingConfig: new Set<string>(), scripts: {} };
const tools = (...names: string[]) => ({ hasTool: (n: string) => names.includes(n), localBins: new Set<string>() });

describe('gate hygiene: a gate never writes the tree it judges', () => {
  it.each([
    ['cargo fmt', 'cargo fmt --check'],
    ['cargo fmt --all -- --config x=1', 'cargo fmt --check --all -- --config x=1'],
    ['cargo clippy --fix --allow-dirty -- -D warnings', 'cargo clippy -- -D warnings'],
    ['npx prettier --write .', 'npx prettier --check .'],
    ['eslint --fix src', 'eslint src'],
    ['ruff check --fix .', 'ruff check . --no-fix'],
    ['uv run ruff format .', 'uv run ruff format --check .'],
    ['python -m black src', 'python -m black --check src'],
    ['ruff format src', 'ruff format --check src'],
    ['black .', 'black --check .'],
    ['isort src', 'isort --check-only src'],
    ['npx @biomejs/biome check --write .', 'npx @biomejs/biome check .'],
    ['biome check --write .', 'biome check .'],
    ['golangci-lint run --fix', 'golangci-lint run'],
    ['make lint && cargo fmt', 'make lint && cargo fmt --check'],
    ['cargo fmt --check', 'cargo fmt --check'],
    ['npm test', 'npm test'],
  ])('%s → %s', (command, expected) => {
    expect(checkingForm(command, plain)).toEqual({ command: expected });
  });

  it('golangci-lint under `issues: fix: true` gets --fix=false', () => {
    expect(checkingForm('golangci-lint run ./...', { ...plain, fixingConfig: new Set(['golangci-lint']) })).toEqual({
      command: 'golangci-lint run --fix=false ./...',
    });
  });

  it('ruff under `fix = true` gets --no-fix', () => {
    expect(checkingForm('ruff check .', { ...plain, fixingConfig: new Set(['ruff']) })).toEqual({
      command: 'ruff check --no-fix .',
    });
  });

  it.each([
    ['npm run lint:fix', {}, 'the script "lint:fix" fixes or formats files by its name'],
    ['pnpm format', {}, 'the script "format" fixes or formats files by its name'],
    ['npm run lint', { lint: 'eslint --fix .' }, 'which rewrites files (its checking form: `eslint .`)'],
    ['gofmt -w .', {}, 'exits 0 whatever it finds'],
    ['pre-commit run --all-files', {}, 'pre-commit hooks rewrite files'],
  ])('%s is left out', (command, scripts, reason) => {
    const out = checkingForm(command, { ...plain, scripts });
    expect('drop' in out && out.drop).toContain(reason);
  });

  it('a script that checks the format is kept', () => {
    expect(checkingForm('npm run format:check', { ...plain, scripts: { 'format:check': 'prettier -c .' } })).toEqual({
      command: 'npm run format:check',
    });
  });
});

describe('gates that cannot run here are marked at recon', () => {
  it.each([
    ['uvx ruff check .', '`uvx` fetches the tool'],
    ['uv run pytest', '`uv run` syncs the environment'],
    ['tox -e py311', 'tox builds its environments'],
    ['npx -y eslint .', 'downloads the package'],
    ['pnpm dlx vitest', 'downloads the package'],
    ['just test', '`just` is not on PATH'],
    ['cargo nextest run', '`cargo-nextest` is not on PATH'],
  ])('%s', (command, reason) => {
    expect(cannotRun(command, tools('cargo', 'npx', 'pnpm', 'uv', 'tox'))).toContain(reason);
  });

  it('programs on PATH, in node_modules/.bin, or run by path are fine', () => {
    const facts = { hasTool: (n: string) => n === 'npx' || n === 'cargo', localBins: new Set(['vitest']) };
    expect(cannotRun('npx vitest run', facts)).toBeUndefined();
    expect(cannotRun('cargo test && ./scripts/check.sh', facts)).toBeUndefined();
    expect(cannotRun('CI=1 vitest run', facts)).toBeUndefined();
    expect(cannotRun('npx tsc', facts)).toContain('not installed in node_modules/.bin');
  });
});

describe('one gate per suite', () => {
  const gate = (command: string, kind: Candidate['kind'] = 'test', source = 'x'): Candidate => ({
    name: command,
    command,
    kind,
    source,
  });
  const facts = (scripts: Record<string, string> = {}, makefile = '') => ({
    scripts,
    makeTargets: makeTargets(makefile),
  });

  it('the same runner with other verbosity or coverage flags runs once, the first found', () => {
    const out = mergeSuites([gate('cargo test'), gate('cargo test --verbose'), gate('python3 -m pytest -q --cov=x')], {
      ...facts(),
    });
    expect(out.gates.map((g) => g.command)).toEqual(['cargo test', 'python3 -m pytest -q --cov=x']);
    expect(out.dropped.map((d) => d.reason)).toEqual(['the same suite as `cargo test` (x), which runs it']);
  });

  it('npm test and a test-ci script that wraps it; pnpm lint inside pnpm test (which becomes the test gate)', () => {
    const scripts = { test: 'pnpm lint && vitest run', lint: 'eslint .', 'test-ci': 'pnpm test -- --coverage' };
    const out = mergeSuites(
      [gate('pnpm lint', 'lint', 'package.json:3'), gate('pnpm test', 'test', 'package.json:2'), gate('pnpm test-ci')],
      facts(scripts),
    );
    expect(out.gates.map((g) => `${g.kind} ${g.command}`)).toEqual(['test pnpm test']);
    expect(out.dropped.map((d) => `${d.command}: ${d.reason}`)).toEqual([
      'pnpm lint: it runs inside `pnpm test` (package.json:2)',
      'pnpm test-ci: the same suite as `pnpm test` (package.json:2), which runs it',
    ]);
  });

  it('make check that runs make lint and make test takes them in, and the test kind', () => {
    const makefile = 'lint:\n\truff check .\ntest:\n\t@python -m pytest\ncheck: lint test\n.PHONY: lint test check\n';
    const out = mergeSuites(
      [gate('make lint', 'lint'), gate('make test'), gate('make check', 'other')],
      facts({}, makefile),
    );
    expect(out.gates.map((g) => `${g.kind} ${g.command}`)).toEqual(['test make check']);
    expect(mergeSuites([gate('make test'), gate('pytest')], facts({}, makefile)).gates.map((g) => g.command)).toEqual([
      'make test',
    ]);
  });

  it('a suite in another folder is another suite', () => {
    const out = mergeSuites([gate('pytest'), gate('cd sub && pytest')], facts());
    expect(out.gates).toHaveLength(2);
  });
});

describe('settling the candidates', () => {
  it('rewrites, leaves out with reasons, and keeps cheap kinds first', () => {
    const found: Candidate[] = [
      { name: 'test', command: 'npm test', kind: 'test', source: 'package.json:5' },
      { name: 'cargo fmt', command: 'cargo fmt', kind: 'lint', source: '.github/workflows/ci.yml:9' },
      { name: 'uvx', command: 'uvx ruff check', kind: 'lint', source: 'ci.yml:3' },
      { name: 'x', command: 'npm test -- $' + '{{ secrets.A }}', kind: 'test', source: 'ci.yml:4', drop: 'secret' },
      { name: 'pytest', command: 'python -m pytest', kind: 'test', source: 'pytest.ini' },
    ];
    const out = settleGates(found, {
      ...plain,
      makeTargets: {},
      localBins: new Set(),
      hasTool: (n) => ['npm', 'cargo', 'uv', 'python3'].includes(n),
    });
    expect(out.gates.map((g) => `${g.kind} ${g.command}`)).toEqual([
      'lint cargo fmt --check',
      'test npm test',
      'test python3 -m pytest',
    ]);
    expect(out.dropped.map((d) => `${d.source}: ${d.reason}`)).toEqual([
      'ci.yml:3: `uvx` fetches the tool it runs from the network: gate skipped',
      'ci.yml:4: secret',
    ]);
  });
});
