const GATE_WORD_LIST = (
  'test tests lint check typecheck type-check vet clippy pytest mypy ruff tsc eslint biome ' +
  'build fmt golangci-lint ctest vitest jest mocha ava tap nextest tox nox unittest'
).split(' ');
const GATE_WORDS = new RegExp(String.raw`\b(${GATE_WORD_LIST.join('|')})\b`);
/** Commands that set up, install or publish (a pattern each), and words that say so anywhere in a command. */
const SETUP_COMMANDS = (
  'echo export mkdir rm cp mv cat ls curl wget apt(-get)? brew sudo git docker source ' +
  String.raw`\. set chmod tee printf npx\s+playwright\s+install`
).split(' ');
const SETUP_WORDS = ['install', 'ci', 'setup', 'upload', 'download', 'cache', 'login', 'publish', 'deploy', 'release'];
const SETUP = new RegExp(String.raw`^(${SETUP_COMMANDS.join('|')})\b|\b(${SETUP_WORDS.join('|')})\b(?!-)`);

/**
 * Whether a command taken from CI steps or contributor docs is a quality gate worth re-running (tests,
 * lint, types, build) rather than set-up (installs, caches, uploads, deploys).
 */
export function looksLikeGate(command: string): boolean {
  const c = command.trim();
  if (!c || c.startsWith('#')) return false;
  if (SETUP.test(c) && !/^(npm|pnpm|yarn|bun)\s+(run\s+)?(test|lint|typecheck|build)\b/.test(c)) return false;
  return GATE_WORDS.test(c);
}

/** Two spellings of one command count once: `npm run test` is `npm test`; white space is folded. */
export function normalizeCommand(command: string): string {
  return command
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^(npm|pnpm|yarn|bun) run test\b/, '$1 test')
    .replace(/^(pnpm|yarn) run (\S+)/, '$1 $2')
    .replace(/^python3? -m pytest\b/, 'pytest');
}
