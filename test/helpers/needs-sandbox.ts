import { it } from 'vitest';
import { probeSandbox } from '../../src/sandbox/probe-sandbox.js';

/** Whether this machine can run the sandbox (bubblewrap and socat); CI installs both (.ci/run). */
export const sandboxSupport = await probeSandbox();
const ready = sandboxSupport.works && Boolean(sandboxSupport.socat);
const why = !sandboxSupport.works ? (sandboxSupport.reason ?? 'no sandbox') : 'socat is not on PATH';

/**
 * A test that needs the sandbox: it runs wherever bubblewrap and socat are installed; elsewhere it is
 * reported by name as not run, with the reason (never silently skipped).
 */
export function sandboxIt(name: string, fn: () => Promise<void>, timeout?: number): void {
  if (!ready) process.stderr.write(`NOT RUN (${why}): ${name}\n`);
  it.skipIf(!ready)(ready ? name : `${name} — NOT RUN: ${why}`, fn, timeout);
}
