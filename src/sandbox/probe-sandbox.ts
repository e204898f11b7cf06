import { findExecutable } from '../proc/find-executable.js';
import { runCapture } from '../proc/run-capture.js';

/** Whether this machine can sandbox agents and gates, and with what. */
export interface SandboxSupport {
  /** A sandbox can be made here (bubblewrap runs, with its own PID, mount and network namespaces). */
  works: boolean;
  /** Why not, and how to get there. */
  reason?: string;
  bwrap?: string;
  version?: string;
  /** socat is on PATH: the network can be limited to allowed hosts (without it: no network at all, or open). */
  socat?: string;
}

let probed: Promise<SandboxSupport> | undefined;

async function probe(): Promise<SandboxSupport> {
  if (process.platform !== 'linux') {
    const what =
      process.platform === 'darwin'
        ? 'macOS (sandbox-exec) is not supported yet'
        : `${process.platform} is not supported`;
    return { works: false, reason: `${what}: star-loop's sandbox uses Linux namespaces through bubblewrap` };
  }
  const [bwrap, socat] = await Promise.all([findExecutable('bwrap'), findExecutable('socat')]);
  if (!bwrap) {
    return {
      works: false,
      socat,
      reason: 'bubblewrap (bwrap) is not on PATH: install it (e.g. `apt-get install bubblewrap`)',
    };
  }
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const trial = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-net',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    'true',
  ];
  // Side by side: the version is only said, the trial decides.
  const [versionRun, run] = await Promise.all([
    runCapture(bwrap, ['--version'], { cwd: '/', env, timeoutMs: 5000 }).catch(() => undefined),
    runCapture(bwrap, trial, { cwd: '/', env, timeoutMs: 10_000 }).catch((error: Error) => ({
      exitCode: 127,
      stdout: '',
      stderr: error.message,
    })),
  ]);
  const version = versionRun?.stdout.trim();
  if (run.exitCode !== 0) {
    const why = run.stderr.trim().split('\n')[0] || `exit ${run.exitCode}`;
    return {
      works: false,
      bwrap,
      version,
      socat,
      reason:
        `bubblewrap cannot make a sandbox here (${why}): unprivileged user namespaces may be off ` +
        '(sysctl kernel.unprivileged_userns_clone=1)',
    };
  }
  return { works: true, bwrap, version, socat };
}

/** Probed once per process: finds bwrap and socat, and runs a trial sandbox (a few milliseconds). */
export function probeSandbox(): Promise<SandboxSupport> {
  probed ??= probe();
  return probed;
}
