const joined = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' ');

/**
 * The environment every gate runs with so its output can be read: colour off in every way runners honour
 * (NO_COLOR, FORCE_COLOR=0 for Node's, CLICOLOR, CARGO_TERM_COLOR, PY_COLORS, pytest's `--color=no` after
 * the project's own addopts), and CI=true unless the caller set it. The counters strip what still comes
 * through (a `--color=yes` on the gate's own command line). Pure.
 */
export function plainOutputEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    CI: env.CI ?? 'true',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    CLICOLOR: '0',
    CARGO_TERM_COLOR: 'never',
    PY_COLORS: '0',
    PYTEST_ADDOPTS: joined(env.PYTEST_ADDOPTS, '--color=no'),
  };
}
