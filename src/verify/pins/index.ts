import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { DEPENDENCY_DIR_NAMES } from '../../gates/dependencies.js';
import { parseJson } from '../../util/parse-json.js';
import { iniSections, type PinSource, wholeFile } from './pin-source.js';

const GATE_SCRIPTS = /^(pre|post)?(test|lint|typecheck|type-check|build|check)(:.*)?$/;
const TOOL_KEYS = ['jest', 'mocha', 'ava', 'c8', 'nyc', 'eslintConfig', 'vitest'];
const GATE_TARGETS = /^(check|typecheck|lint|test|build)$/;
const STRICTNESS = new RegExp(
  String.raw`^(strict\w*|noImplicit\w*|noUnused\w*|noUnchecked\w*|noFallthrough\w*|exactOptional\w*|` +
    'skipLibCheck|allowJs|checkJs|noEmitOnError)$',
);

const packageJson: PinSource = {
  name: 'package.json scripts and test-tool config',
  matches: (p) => /(^|\/)package\.json$/.test(p),
  parts(text) {
    const out = new Map<string, string>();
    let json: Record<string, unknown>;
    try {
      json = parseJson(text) as Record<string, unknown>;
    } catch {
      return wholeFile(text);
    }
    for (const [name, body] of Object.entries((json.scripts as Record<string, unknown>) ?? {})) {
      if (GATE_SCRIPTS.test(name)) out.set(`scripts.${name}`, JSON.stringify(body));
    }
    for (const key of TOOL_KEYS) if (json[key] !== undefined) out.set(key, JSON.stringify(json[key]));
    return out;
  },
};

/** Recipes of gate targets in a Makefile or justfile. */
const recipes: PinSource = {
  name: 'Makefile / justfile gate targets',
  matches: (p) => /(^|\/)(GNUmakefile|[Mm]akefile|[Jj]ustfile|\.justfile)$/.test(p),
  parts(text) {
    const out = new Map<string, string>();
    let current: string | undefined;
    for (const line of text.split('\n')) {
      // `include`, `-include`, `sinclude`: other makefiles that can redefine any target.
      if (/^\s*-?s?include\s/.test(line)) out.set('include', `${out.get('include') ?? ''}${line.trim()}\n`);
      const target = /^@?([\w.-]+)(\s+[^:=]*)?\s*:(?!=)/.exec(line);
      if (target) {
        current = GATE_TARGETS.test(target[1] ?? '') ? `target ${target[1]}` : undefined;
        if (current) out.set(current, `${line.trim()}\n`);
      } else if (current && /^\s+\S/.test(line)) out.set(current, `${out.get(current) ?? ''}${line.trim()}\n`);
      else if (line.trim()) current = undefined;
    }
    return out;
  },
};

const pyproject: PinSource = {
  name: 'pyproject.toml tool sections',
  matches: (p) => /(^|\/)pyproject\.toml$/.test(p),
  parts: (text) => iniSections(text, /^tool\.(pytest|ruff|mypy|coverage|pyright|pylint|black|isort)/),
};

const iniConfigs: PinSource = {
  name: 'setup.cfg / tox.ini test sections',
  matches: (p) => /(^|\/)(setup\.cfg|tox\.ini)$/.test(p),
  parts: (text) => iniSections(text, /^(tool:pytest|pytest|flake8|mypy.*|coverage:.*|pycodestyle|testenv.*)$/),
};

const cargo: PinSource = {
  name: 'Cargo.toml lints',
  matches: (p) => /(^|\/)Cargo\.toml$/.test(p),
  parts: (text) => iniSections(text, /^(lints.*|workspace\.lints.*|profile\.test)$/),
};

const tsconfig: PinSource = {
  name: 'tsconfig strictness and scope',
  matches: (p) => /(^|\/)tsconfig[\w.-]*\.json$/.test(p),
  parts(text) {
    const out = new Map<string, string>();
    const tree = parseTree(text);
    if (!tree) return wholeFile(text);
    for (const key of ['include', 'exclude', 'files', 'extends']) {
      const node = findNodeAtLocation(tree, [key]);
      if (node) out.set(key, text.slice(node.offset, node.offset + node.length));
    }
    for (const option of findNodeAtLocation(tree, ['compilerOptions'])?.children ?? []) {
      const [k, v] = option.children ?? [];
      if (typeof k?.value === 'string' && STRICTNESS.test(k.value) && v)
        out.set(`compilerOptions.${k.value}`, text.slice(v.offset, v.offset + v.length));
    }
    return out;
  },
};

/** Test-runner, linter and coverage configuration files, by name (each a pattern). */
const CONFIG_FILE_NAMES = [
  String.raw`(vitest|vite|jest|playwright|cypress|karma)\.(config|workspace)\.[cm]?[jt]s`,
  String.raw`\.mocharc\.\w+`,
  String.raw`jest\.config\.json`,
  String.raw`eslint\.config\.[cm]?[jt]s`,
  String.raw`\.eslintrc(\.\w+)?`,
  String.raw`biome\.jsonc?`,
  String.raw`ruff\.toml`,
  String.raw`\.ruff\.toml`,
  String.raw`mypy\.ini`,
  String.raw`pytest\.ini`,
  String.raw`\.coveragerc`,
  String.raw`\.nycrc(\.\w+)?`,
  String.raw`\.c8rc(\.\w+)?`,
  String.raw`\.golangci\.\w+`,
  String.raw`\.?clippy\.toml`,
  String.raw`\.pre-commit-config\.yaml`,
  String.raw`codecov\.ya?ml`,
  String.raw`star\.config\.json`,
  // What npm, yarn, pnpm and bun read before they run a script (node-options, script-shell, hooks).
  String.raw`\.npmrc`,
  String.raw`\.yarnrc(\.yml)?`,
  String.raw`\.pnpmfile\.c?js`,
  String.raw`bunfig\.toml`,
];
const CONFIG_FILES = new RegExp(String.raw`(^|\/)(${CONFIG_FILE_NAMES.join('|')})$`);

/** Files that are gate configuration from the first line to the last. */
const whole: PinSource = {
  name: 'test runner, linter and CI configuration',
  matches: (p) => CONFIG_FILES.test(p) || /^\.github\/workflows\//.test(p) || /^\.husky\//.test(p),
  parts: wholeFile,
};

/**
 * Files inside a dependency folder (node_modules, .venv) committed: the gates take their tools from there
 * (`node_modules/.bin` is first on an npm script's PATH), so a committed `node_modules/.bin/node` is a gate.
 */
const dependencyFolders: PinSource = {
  name: 'a dependency folder the gates take their tools from',
  matches: (p) => p.split('/').some((segment) => DEPENDENCY_DIR_NAMES.has(segment)),
  parts: wholeFile,
};

/** Every kind of file that can change what a gate runs. A new kind: one entry here. */
export const pinSources: readonly PinSource[] = [
  packageJson,
  recipes,
  pyproject,
  iniConfigs,
  cargo,
  tsconfig,
  whole,
  dependencyFolders,
];
