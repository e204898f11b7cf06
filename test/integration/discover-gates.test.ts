import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { discoverGates } from '../../src/gates/discover-gates.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/gates/${name}/`, import.meta.url));
const shape = (gates: Awaited<ReturnType<typeof discoverGates>>) =>
  gates.map((g) => `${g.kind} | ${g.command} | ${g.source}`);

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
    ['contributing', ['lint | make lint | CONTRIBUTING.md:12', 'test | pytest -x tests/ | CONTRIBUTING.md:13']],
    ['none', []],
  ])('%s', async (name, expected) => {
    expect(shape(await discoverGates(fixture(name)))).toEqual(expected);
  });

  it('`gates` in star.config.json replaces discovery', async () => {
    const gates = await discoverGates(fixture('npm'), [{ name: 'e2e', command: 'make e2e' }]);
    expect(shape(gates)).toEqual(['other | make e2e | star.config.json']);
  });
});
