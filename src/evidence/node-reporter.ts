import { existsSync } from 'node:fs';
import { findExecutable } from '../proc/find-executable.js';
import { runCapture } from '../proc/run-capture.js';
import { packageFile } from '../util/package-root.js';

const supported = new Map<string, boolean>();

/** star-loop's reporter for node's test runner, compiled (dist/evidence/node-test-reporter.js). */
function reporterFile(): string | undefined {
  const file = packageFile('dist/evidence/node-test-reporter.js');
  return existsSync(file) ? file : undefined;
}

/**
 * The reporter to load through NODE_OPTIONS, when the `node` the gates find on PATH takes it (node ≥ 20;
 * an older one would refuse to start with the option, so it gets none). Checked once per node binary.
 */
export async function nodeReporterFor(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const node = await findExecutable('node', env.PATH ?? '');
  const file = reporterFile();
  if (!node || !file) return undefined;
  let ok = supported.get(node);
  if (ok === undefined) {
    const version = await runCapture(node, ['--version'], { cwd: '/', timeoutMs: 10_000 }).catch(() => undefined);
    const major = Number(/^v(\d+)\./.exec(version?.stdout ?? '')?.[1] ?? 0);
    ok = major >= 20;
    supported.set(node, ok);
  }
  return ok ? file : undefined;
}
