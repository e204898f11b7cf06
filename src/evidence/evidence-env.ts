import { join } from 'node:path';

/** Where, in a gate's evidence folder, each channel writes. */
export const EVIDENCE_FILES = { node: 'node-tests.jsonl', pytest: 'pytest-junit.xml' } as const;

const joined = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' ');

/**
 * The environment that makes test runners report every test, leaving the gate's command as written:
 * node's test runner loads star-loop's reporter beside a spec reporter on stdout (NODE_OPTIONS), pytest
 * writes JUnit XML (PYTEST_ADDOPTS), go test prints each test (GOFLAGS=-v). `nodeReporter` undefined: the
 * node on PATH is too old for reporters in NODE_OPTIONS, so node's channel is left out. Pure.
 */
export function evidenceEnv(
  dir: string,
  env: NodeJS.ProcessEnv,
  nodeReporter: string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {
    PYTEST_ADDOPTS: joined(env.PYTEST_ADDOPTS, `--junitxml=${join(dir, EVIDENCE_FILES.pytest)}`),
    GOFLAGS: joined(env.GOFLAGS, '-v'),
  };
  if (nodeReporter) {
    out.STAR_LOOP_TEST_EVENTS = join(dir, EVIDENCE_FILES.node);
    out.NODE_OPTIONS = joined(
      env.NODE_OPTIONS,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${nodeReporter}`,
      '--test-reporter-destination=/dev/null',
    );
  }
  return out;
}
