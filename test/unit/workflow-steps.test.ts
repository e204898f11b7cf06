import { describe, expect, it } from 'vitest';
import { runCommands } from '../../src/gates/discoverers/workflows.js';
import { scriptLines } from '../../src/gates/script-lines.js';

/** A GitHub Actions expression star-loop cannot resolve. */
const SECRET = '$' + '{{ secrets.TOKEN }}';

const WORKFLOW = `name: ci
env:
  PKG: core
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
        extra: [fast]
    steps:
      - uses: some/action@v1
        with:
          run: npm run release
      - name: tests
        run: |
          # the suite
          cd packages/\${{ env.PKG }}
          python\${{ matrix.python }} -m pytest \\
            --maxfail=1
          if [ -n "$X" ]; then
            npm test
          fi
          ruff check .
      - run: cargo test --features \${{ matrix.extra }}
      - run: npm test -- --token \${{ secrets.TOKEN }}
      - shell: pwsh
        run: Invoke-Pester
      - working-directory: web
        run: >
          pnpm vitest
          run
`;

describe('workflow steps (a YAML parser, steps only)', () => {
  it('reads every run: of every step, never an action’s with: inputs; resolves matrix and env', async () => {
    expect(await runCommands(WORKFLOW)).toEqual([
      { command: 'cd packages/core && python3.11 -m pytest --maxfail=1', line: 19 },
      { command: 'cd packages/core && ruff check .', line: 24 },
      { command: 'cargo test --features fast', line: 25 },
      {
        command: `npm test -- --token ${SECRET}`,
        line: 26,
        drop: `its \`${SECRET}\` has no value star-loop can know outside GitHub Actions`,
      },
      { command: 'Invoke-Pester', line: 28, drop: 'it runs in `pwsh`, not sh' },
      { command: 'cd web && pnpm vitest run', line: 31 },
    ]);
  });

  it('a matrix given by include only takes its first entry', async () => {
    const text = `jobs:
  t:
    strategy:
      matrix:
        include:
          - target: x86_64
    steps:
      - run: cargo test --target \${{ matrix.target }}
`;
    expect((await runCommands(text)).map((c) => c.command)).toEqual(['cargo test --target x86_64']);
  });

  it('an invalid workflow yields nothing (it is not a gate source)', async () => {
    expect(await runCommands('jobs: [\n')).toEqual([]);
  });
});

describe('a script as its commands', () => {
  it('joins continuations, carries cd and export, leaves out comments and control flow', () => {
    expect(
      scriptLines('export CI=1\n# x\nnpm test \\\n  --silent\n\nfor f in a b; do\n  lint $f\ndone\ncd sub\nmake check'),
    ).toEqual([
      { command: 'export CI=1 && npm test --silent', offset: 2 },
      { command: 'export CI=1 && cd sub && make check', offset: 9 },
    ]);
  });
});
