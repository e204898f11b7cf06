const GATE_WORDS =
  /\b(test|tests|lint|check|typecheck|type-check|vet|clippy|pytest|mypy|ruff|tsc|eslint|biome|build|fmt|golangci-lint|ctest)\b/;
const SETUP =
  /^(echo|export|mkdir|rm|cp|mv|cat|ls|curl|wget|apt(-get)?|brew|sudo|git|docker|source|\.|set|chmod|tee|printf|npx\s+playwright\s+install)\b|\b(install|ci|setup|upload|download|cache|login|publish|deploy|release)\b(?!-)|\$\{\{/;

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
