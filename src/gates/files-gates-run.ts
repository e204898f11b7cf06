import type { Gate, RepoFiles } from './gate.js';

const RUNNERS = /^(npm|pnpm|yarn|bun)$/;
const MAKE = /^(make|just)$/;
/** A path in the repository a command can run or read (not an option, a variable, a URL or a glob). */
const PATH_LIKE = /^(\.\/)?[\w@.-]+(\/[\w@.-]+)*$/;
const SCRIPT_FILE = /\.(c?js|mjs|ts|mts|cts|sh|bash|py|rb|pl|php)$/;
/** Test files are checked as tests (removed, skipped, weakened), never frozen: an honest story adds tests. */
const TEST_FILE = /(^|\/)(tests?|spec|__tests__)\/|[._-](test|spec)\.[\w]+$|(^|\/)test_[\w]+\.py$/;

function tokens(command: string): string[] {
  return command
    .split(/[\s;&|()<>]+/)
    .map((t) => t.replace(/^['"]|['"]$/g, ''))
    .filter(Boolean);
}

/** The scripts `npm test`, `npm run lint`, `pnpm lint`, `yarn build`… run, pre and post hooks included. */
function scriptTexts(words: string[], scripts: Record<string, unknown>): string[] {
  const [tool, first, second] = words;
  if (!tool || !RUNNERS.test(tool) || !first) return [];
  const name = first === 'run' || first === 'run-script' ? second : first;
  if (!name) return [];
  return [`pre${name}`, name, `post${name}`].map((s) => scripts[s]).filter((s): s is string => typeof s === 'string');
}

/** A make or just target's recipe lines, and a Makefile's `include`d files. */
function recipe(text: string, target: string): { lines: string[]; includes: string[] } {
  const lines: string[] = [];
  const includes: string[] = [];
  let inTarget = false;
  for (const line of text.split('\n')) {
    const include = /^\s*-?s?include\s+(.+)$/.exec(line);
    if (include) includes.push(...(include[1] ?? '').split(/\s+/).filter((f) => f && !f.includes('$')));
    const head = /^@?([\w.-]+)(\s+[^:=]*)?\s*:(?!=)(.*)$/.exec(line);
    if (head) {
      inTarget = head[1] === target;
      if (inTarget) lines.push(head[3] ?? '');
    } else if (inTarget && /^\s+\S/.test(line)) lines.push(line.trim());
    else if (line.trim()) inTarget = false;
  }
  return { lines, includes };
}

/**
 * The repository's files the gates execute or read besides their commands: the script behind `npm run
 * lint`, the `scripts/*.js` or `./tools/check.sh` it names, a make target's recipe files and the Makefile's
 * includes, a local wrapper like `./gradlew`. A change to one during a run changes what a gate does, so
 * they are pinned like the gate commands. Test files are left out.
 */
export async function filesGatesRun(files: RepoFiles, gates: readonly Gate[]): Promise<string[]> {
  const packageText = await files.read('package.json');
  let scripts: Record<string, unknown> = {};
  try {
    scripts = packageText ? ((JSON.parse(packageText) as { scripts?: Record<string, unknown> }).scripts ?? {}) : {};
  } catch {
    scripts = {};
  }
  const candidates = new Set<string>();
  for (const gate of gates) {
    const words = tokens(gate.command);
    const texts = [gate.command, ...scriptTexts(words, scripts)];
    const [tool, target] = words;
    if (tool && target && MAKE.test(tool)) {
      for (const file of tool === 'make'
        ? ['GNUmakefile', 'Makefile', 'makefile']
        : ['justfile', 'Justfile', '.justfile']) {
        const text = await files.read(file);
        if (text === undefined) continue;
        const found = recipe(text, target);
        texts.push(...found.lines);
        for (const include of found.includes) candidates.add(include);
        break;
      }
    }
    for (const text of texts) {
      for (const token of tokens(text)) {
        if (!PATH_LIKE.test(token) || token.startsWith('-')) continue;
        if (token.includes('/') || SCRIPT_FILE.test(token)) candidates.add(token.replace(/^\.\//, ''));
      }
    }
  }
  const pinned: string[] = [];
  for (const path of [...candidates].sort()) {
    if (path.startsWith('node_modules/') || TEST_FILE.test(path)) continue;
    if ((await files.read(path)) !== undefined) pinned.push(path);
  }
  return pinned;
}
