import { join } from 'node:path';
import type { SandboxSpec } from './sandbox-spec.js';

/** The port socat listens on for the proxy inside the sandbox, unless a forwarded port takes it. */
export const PROXY_PORT = 3128;

const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

/**
 * Waits without a process: the first `SPIN` checks run back to back in the shell (what is waited for is
 * usually there within a few milliseconds, less than starting a `sleep`), then one `sleep` between checks.
 */
const SPIN = 200;

/**
 * The end of every sandbox's launcher: once the command is done, kill every other process in the sandbox's
 * PID namespace (setsid, SIGTERM-ignoring, background: all) and wait, at most 5 s, until only bubblewrap's
 * init and the launcher are left. bubblewrap itself returns as soon as the command exits, while the kernel
 * may still be ending the rest: waiting here means that when the sandbox's process ends, nothing that ran
 * inside can write a file any more.
 */
const REAP = [
  '"$@"; s=$?',
  'kill -9 -1 2>/dev/null',
  'i=0; while [ "$i" -lt 700 ]; do n=0; for p in /proc/[0-9]*; do n=$((n+1)); done',
  `  [ "$n" -le 2 ] && break; i=$((i+1)); [ "$i" -gt ${SPIN} ] && sleep 0.01; done`,
  'exit "$s"',
];

/**
 * The script that runs first inside a sandbox: with a filtered network, socat on loopback for the proxy and
 * each forwarded port and a wait (reading /proc/net/tcp, at most about 2 s) until they listen; then the command,
 * and the end of everything it started.
 */
export function launcher(network: SandboxSpec['network']): string {
  return [...(network.mode === 'filtered' ? networkSetup(network) : []), ...REAP].join('\n');
}

function networkSetup(network: Extract<SandboxSpec['network'], { mode: 'filtered' }>): string[] {
  const lines: string[] = [];
  const listen = (port: number, socket: string) =>
    `socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${join(network.dir, socket)} 2>/dev/null &`;
  lines.push(listen(network.proxyPort, 'proxy.sock'));
  for (const port of network.forwardedPorts) lines.push(listen(port, `port-${port}.sock`));
  const ports = [network.proxyPort, ...network.forwardedPorts].map(hex).join(' ');
  // Listening: a line of /proc/net/tcp whose local address ends in the port and whose state is 0A, read
  // by the shell itself (no grep per check).
  lines.push(
    'listening() { while read -r _ l _ st _; do case "$l:$st" in *:"$1":0A) return 0;; esac; done </proc/net/tcp',
    '  return 1; }',
    `for p in ${ports}; do i=0; until listening "$p"; do`,
    `  i=$((i+1)); [ "$i" -gt ${SPIN + 400} ] && break; [ "$i" -gt ${SPIN} ] && sleep 0.005; done; done`,
  );
  return lines;
}

/** Environment for a filtered network: the proxy for everything, loopback straight to the forwarded ports. */
export function networkEnv(network: SandboxSpec['network']): Record<string, string> {
  if (network.mode !== 'filtered') return {};
  const proxy = `http://127.0.0.1:${network.proxyPort}`;
  return {
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    ALL_PROXY: proxy,
    NO_PROXY: '127.0.0.1,localhost,::1',
    no_proxy: '127.0.0.1,localhost,::1',
  };
}

/** bubblewrap's arguments for a spec and a command (pure). */
export function bwrapArgs(spec: SandboxSpec, command: string, args: readonly string[]): string[] {
  const out = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (spec.network.mode !== 'open') out.push('--unshare-net');
  out.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  if (spec.home) {
    out.push('--tmpfs', spec.home);
    for (const path of spec.homeReadOnly) out.push('--ro-bind-try', path, path);
    for (const path of spec.homeWritable) out.push('--bind-try', path, path);
  }
  for (const path of spec.writable) out.push('--bind-try', path, path);
  const tree = spec.tree ?? spec.root;
  out.push(spec.treeWritable ? '--bind' : '--ro-bind', tree, spec.root);
  for (const { from, to } of spec.readOnly) out.push('--ro-bind-try', from, to);
  if (spec.starScratch) out.push('--bind', spec.starScratch, join(spec.root, '.star'));
  for (const file of spec.hidden) out.push('--ro-bind-try', '/dev/null', file);
  if (spec.network.mode === 'filtered') out.push('--bind', spec.network.dir, spec.network.dir);
  out.push('--chdir', spec.root, '--', 'sh', '-c', launcher(spec.network), 'star-loop-sandbox', command, ...args);
  return out;
}
