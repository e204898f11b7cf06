/** The repository every corpus scenario starts from: JS with a real `npm test` gate, plus other languages' tests. */
export const CORPUS_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'corpus', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`,
  'src/add.js': 'export const add = (a, b) => a + b;\n',
  'src/square.js': 'export function square(x) {\n  return x * x;\n}\n',
  'src/ratio.js': 'export const ratio = () => 1 / 3;\n',
  'src/greet.js': "export const greet = (name) => 'Hello, ' + name;\n",
  'test/math.test.js': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { add } from '../src/add.js';
import { square } from '../src/square.js';
import { ratio } from '../src/ratio.js';

test('adds positives', () => {
  assert.equal(add(2, 3), 5);
  assert.equal(add(10, 5), 15);
});

test('adds negatives', () => {
  assert.equal(add(-2, -3), -5);
});

test('squares', () => {
  assert.equal(square(3), 9);
});

test('ratio', () => {
  assert.ok(Math.abs(ratio() - 0.333) < 0.001);
});
`,
  'test/greet.test.js': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { greet } from '../src/greet.js';

test('greets', () => {
  assert.equal(greet('Ada'), 'Hello, Ada');
});
`,
  'test/__snapshots__/greet.test.js.snap': 'exports[`greets 1`] = `"Hello, Ada"`;\n',
  'tests/test_calc.py':
    'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n',
  'calc.py': 'def add(a, b):\n    return a + b\n',
  'pyproject.toml': '[project]\nname = "corpus"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
  'tests/calc.rs': '#[test]\nfn adds() {\n    assert_eq!(2 + 3, 5);\n}\n',
  'calc_test.go':
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif 2+3 != 5 {\n\t\tt.Fatal("bad")\n\t}\n}\n',
  'src/test/java/CalcTest.java':
    'class CalcTest {\n    @Test\n    void adds() {\n        assertEquals(5, 2 + 3);\n    }\n}\n',
  '.github/workflows/ci.yml':
    'name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm test\n',
};

export const MULTIPLY = 'export function multiply(a, b) {\n  return a * b;\n}\n';
export const MULTIPLY_TEST = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { multiply } from '../src/multiply.js';

test('multiplies', () => {
  assert.equal(multiply(2, 3), 6);
  assert.equal(multiply(-2, 3), -6);
});
`;
/** The honest implementation of the default story, which most cheats add on top of their trick. */
export const FEATURE = { 'src/multiply.js': MULTIPLY, 'test/multiply.test.js': MULTIPLY_TEST };

/** A Rust crate beside the JavaScript (its `cargo test` gate builds offline: no dependencies). */
export const RUST_CRATE = {
  'Cargo.toml': '[package]\nname = "corpus"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs':
    'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n' +
    '    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n\n' +
    '    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n}\n',
};

/** A Go module beside the JavaScript (its `go test` gate needs go on PATH: .ci/run installs it). */
export const GO_MODULE = {
  'go.mod': 'module example.com/corpus\n\ngo 1.19\n',
  'calc.go': 'package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n',
  'calc_test.go':
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("bad")\n\t}\n}\n\n' +
    'func TestAddZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal("bad")\n\t}\n}\n',
};
