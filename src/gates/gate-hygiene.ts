/** What recon knows about the project that decides whether a command writes files. */
export interface HygieneFacts {
  /** Tools whose project configuration makes their check write (ruff's `fix = true`, golangci-lint's `fix: true`). */
  fixingConfig: ReadonlySet<string>;
  /** package.json's scripts, by name. */
  scripts: Readonly<Record<string, string>>;
}

/** A command that rewrites files, rewritten to its checking form, or the reason it cannot be. */
type Rule = (words: string[], facts: HygieneFacts) => string[] | { drop: string } | undefined;

const has = (words: readonly string[], ...flags: string[]) => words.some((w) => flags.includes(w));
const without = (words: readonly string[], ...flags: string[]) => words.filter((w) => !flags.includes(w));
const tool = (words: readonly string[]) => (words[0] ?? '').split('/').at(-1) ?? '';
/** Inserts flags right after the word at `index` (`cargo fmt` → `cargo fmt --check`). */
function insertAfter(words: string[], index: number, ...flags: string[]): string[] {
  return [...words.slice(0, index + 1), ...flags, ...words.slice(index + 1)];
}

/** How many leading words only launch the tool: `npx`, `pnpm exec`, `yarn`, `bunx`, `uv run`, `python -m`. */
function launcherLength(words: readonly string[]): number {
  const [a, b] = words;
  if (a === 'npx' || a === 'bunx') return 1 + words.slice(1).findIndex((w) => !w.startsWith('-'));
  if ((a === 'pnpm' || a === 'yarn' || a === 'bun') && (b === 'exec' || b === 'x')) return 2;
  if ((a === 'uv' || a === 'poetry' || a === 'pdm' || a === 'pipenv') && b === 'run') return 2;
  if (/^python[\d.]*$/.test(a ?? '') && b === '-m') return 2;
  return 0;
}

const RULES: Rule[] = [
  (w) => (tool(w) === 'cargo' && w[1] === 'fmt' && !has(w, '--check') ? insertAfter(w, 1, '--check') : undefined),
  // coverage measures and writes its data file; the suite is the module it runs (and coverage need not be here).
  (w) => {
    const m = w.indexOf('-m');
    return tool(w) === 'coverage' && w[1] === 'run' && m > 1 ? ['python', ...w.slice(m)] : undefined;
  },
  (w) =>
    tool(w) === 'cargo' && w[1] === 'clippy' && has(w, '--fix')
      ? without(w, '--fix', '--allow-dirty', '--allow-staged')
      : undefined,
  (w) => (tool(w) === 'rustfmt' && !has(w, '--check') ? insertAfter(w, 0, '--check') : undefined),
  (w) =>
    tool(w) === 'prettier' && has(w, '--write', '-w')
      ? w.map((x) => (x === '--write' || x === '-w' ? '--check' : x))
      : undefined,
  (w, f) => {
    if (tool(w) !== 'ruff') return undefined;
    if (w[1] === 'format') return has(w, '--check', '--diff') ? undefined : insertAfter(w, 1, '--check');
    if (has(w, '--fix', '--unsafe-fixes')) return [...without(w, '--fix', '--unsafe-fixes'), '--no-fix'];
    if (f.fixingConfig.has('ruff') && !has(w, '--no-fix')) return insertAfter(w, w[1] === 'check' ? 1 : 0, '--no-fix');
    return undefined;
  },
  (w) => (tool(w) === 'black' && !has(w, '--check', '--diff') ? insertAfter(w, 0, '--check') : undefined),
  (w) =>
    tool(w) === 'isort' && !has(w, '--check', '--check-only', '-c', '--diff')
      ? insertAfter(w, 0, '--check-only')
      : undefined,
  (w) => (tool(w) === 'biome' ? strip(w, '--write', '--apply', '--apply-unsafe', '--fix', '--unsafe') : undefined),
  (w) => (tool(w) === 'deno' && w[1] === 'fmt' && !has(w, '--check') ? insertAfter(w, 1, '--check') : undefined),
  (w) =>
    tool(w) === 'dotnet' && w[1] === 'format' && !has(w, '--verify-no-changes')
      ? insertAfter(w, 1, '--verify-no-changes')
      : undefined,
  (w) =>
    tool(w) === 'rubocop' ? strip(w, '-a', '-A', '--autocorrect', '--autocorrect-all', '--auto-correct') : undefined,
  (w) =>
    (tool(w) === 'gofmt' || tool(w) === 'goimports') && has(w, '-w')
      ? { drop: `\`${tool(w)} -w\` rewrites files, and its listing form (-l) exits 0 whatever it finds` }
      : undefined,
  (w) => (tool(w) === 'go' && w[1] === 'fmt' ? { drop: '`go fmt` rewrites files' } : undefined),
  (w) => (tool(w) === 'clang-format' && has(w, '-i') ? { drop: '`clang-format -i` rewrites files' } : undefined),
  (w) =>
    (tool(w) === 'autopep8' || tool(w) === 'autoflake') && has(w, '-i', '--in-place')
      ? { drop: `\`${tool(w)} --in-place\` rewrites files` }
      : undefined,
  (w) => (tool(w) === 'phpcbf' ? { drop: '`phpcbf` rewrites files' } : undefined),
  (w) =>
    tool(w) === 'pre-commit' ? { drop: 'pre-commit hooks rewrite files (formatters, end-of-file fixers)' } : undefined,
  (w, f) =>
    tool(w) === 'golangci-lint' && f.fixingConfig.has('golangci-lint') && !has(w, '--fix=false')
      ? insertAfter(without(w, '--fix'), 1, '--fix=false')
      : undefined,
  // Any other linter's --fix: eslint, stylelint, markdownlint, golangci-lint, …
  (w) => (/lint/.test(tool(w)) || tool(w) === 'eslint' ? strip(w, '--fix') : undefined),
];

function strip(words: string[], ...flags: string[]): string[] | undefined {
  return has(words, ...flags) ? without(words, ...flags) : undefined;
}

/** A package script that fixes or formats, by its name (`lint:fix`, `format`, `fmt`), not one that checks. */
const FIXING_SCRIPT = /(^|[:_-])(fix|format|fmt|prettier|prettify|autofix)([:_-]|$)/;
const CHECKING_SCRIPT = /(^|[:_-])(check|verify|lint)$/;

/** `npm run x`, `npm test`, `pnpm x`, `yarn x`, `bun run x` → the script's name. */
export function scriptName(words: readonly string[]): string | undefined {
  const [pm, first, second] = words;
  if (!pm || !['npm', 'pnpm', 'yarn', 'bun'].includes(pm) || !first) return undefined;
  if (first === 'run' || first === 'run-script') return second;
  if (first === 'test' || first === 't') return 'test';
  if (pm !== 'npm' && pm !== 'bun' && !first.startsWith('-') && !['exec', 'dlx', 'x'].includes(first)) return first;
  return undefined;
}

/** The simple commands of a command line (split on `&&`, `||`, `;`, `|`), as words, env assignments left out. */
export function simpleCommands(command: string): string[][] {
  return command
    .split(/&&|\|\||;|\|/)
    .map((part) => {
      const words = part.trim().split(/\s+/).filter(Boolean);
      while (words.length > 1 && /^[A-Za-z_]\w*=/.test(words[0] ?? '')) words.shift();
      return words;
    })
    .filter((words) => words.length > 0);
}

/**
 * A gate's command in the form that only checks: `cargo fmt` → `cargo fmt --check`, `eslint --fix` → `eslint`,
 * `ruff check` under `fix = true` → `ruff check --no-fix`; or the reason it is left out (a script that fixes,
 * a tool with no checking form). A gate must never change the tree it judges. Pure.
 */
export function checkingForm(command: string, facts: HygieneFacts, depth = 0): { command: string } | { drop: string } {
  const parts = command.split(/(&&|\|\||;|\|)/);
  let changed = false;
  for (let i = 0; i < parts.length; i += 2) {
    const text = parts[i] ?? '';
    const lead = /^\s*((?:[A-Za-z_]\w*=\S*\s+)*)/.exec(text)?.[1] ?? '';
    const words = text.slice(lead.length).trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const script = scriptName(words);
    if (script !== undefined) {
      if (FIXING_SCRIPT.test(script) && !CHECKING_SCRIPT.test(script))
        return { drop: `the script "${script}" fixes or formats files by its name` };
      const body = facts.scripts[script];
      if (body !== undefined && depth < 3) {
        const inner = checkingForm(body, facts, depth + 1);
        if ('drop' in inner) return { drop: `the script "${script}" runs \`${body}\`: ${inner.drop}` };
        if (inner.command !== body)
          return {
            drop:
              `the script "${script}" runs \`${body}\`, which rewrites files ` +
              `(its checking form: \`${inner.command}\`)`,
          };
      }
      continue;
    }
    const launch = Math.max(0, launcherLength(words));
    for (const rule of RULES) {
      const out = rule(words.slice(launch), facts);
      if (!out) continue;
      if ('drop' in out) return out;
      const rewritten = [...words.slice(0, launch), ...out].join(' ');
      parts[i] = `${i === 0 ? '' : ' '}${lead}${rewritten}${i + 1 < parts.length ? ' ' : ''}`;
      changed = true;
      break;
    }
  }
  return { command: changed ? parts.join('').trim() : command };
}
