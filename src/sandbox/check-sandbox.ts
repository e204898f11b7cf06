import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCapture } from '../proc/run-capture.js';
import { PROXY_PORT } from './bwrap-args.js';
import { decideSandbox } from './decide-sandbox.js';
import type { SandboxSupport } from './probe-sandbox.js';
import { Sandbox } from './sandbox.js';

/** One boundary, as `star-loop doctor` shows it. */
export interface Boundary {
  name: 'processes' | 'files' | 'credentials' | 'network' | 'gates';
  enforced: boolean;
  detail: string;
}

export interface SandboxCheck {
  support: SandboxSupport;
  boundaries: Boundary[];
  /** What one sandboxed process costs to start and end here (the network gate included), in ms. */
  startMs?: number;
}

const LISTENING = `:${PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A`;

/** Run inside a trial sandbox (`$1`: a folder outside its tree): one `key value` line per observation. */
const TRIAL = [
  'echo "procs $(ls /proc | grep -c "^[0-9]")"',
  'touch ./probe 2>/dev/null && echo "tree yes" || echo "tree no"',
  'touch "$1/probe" 2>/dev/null && echo "outside yes" || echo "outside no"',
  'n=0; for f in .ssh .git-credentials .config/gh .aws .config/gcloud .azure .kube .docker .netrc .gnupg; do',
  '  [ -e "$HOME/$f" ] && n=$((n+1)); done; echo "secrets $n"',
  'touch "$HOME/.star-loop-probe" 2>/dev/null; echo "home done"',
  `grep -q "${LISTENING}" /proc/net/tcp && echo "proxy yes" || echo "proxy no"`,
  'echo "nics $(grep -c ":" /proc/net/dev)"',
].join('\n');

const NOT_CONTAINED = {
  processes: 'not contained: processes an agent starts can outlive its iteration',
  files: 'not contained: agents can write anything you can (.git, ~/.gitconfig, other folders)',
  credentials: 'not contained: agents can read ~/.ssh, ~/.config/gh, cloud credentials',
  network: 'not contained: agents can reach any host (push, fetch code, send data)',
  gates: 'gates run on a clean copy of the commit, but outside a sandbox (with the network)',
} as const;

/**
 * Whether the sandbox works here, boundary by boundary: the probe, then a trial sandbox made exactly as a
 * run makes one (a throw-away work tree, the network gate with nothing allowed) and what it observed.
 */
export async function checkSandbox(support: SandboxSupport): Promise<SandboxCheck> {
  const decision = decideSandbox('auto', support);
  if (!decision.active || !support.bwrap) {
    const reason = support.reason ?? decision.detail;
    return {
      support,
      boundaries: (Object.keys(NOT_CONTAINED) as Array<keyof typeof NOT_CONTAINED>).map((name) => ({
        name,
        enforced: false,
        detail: `${NOT_CONTAINED[name]} (${reason})`,
      })),
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-doctor-'));
  const root = join(dir, 'tree');
  const outside = join(dir, 'outside');
  await mkdir(root);
  await mkdir(outside);
  try {
    const sandbox = new Sandbox({
      bwrap: support.bwrap,
      root,
      gitDir: join(root, '.git'),
      keepReadOnly: [],
      network: decision.network,
      allowHosts: [],
      allowWrite: [],
      dependencyDirs: [],
      env: process.env,
    });
    const t0 = performance.now();
    const box = await sandbox.box({ treeWritable: true, hosts: [] });
    const run = box.wrap({ command: 'sh', args: ['-c', TRIAL, 'trial', outside], env: { ...process.env } });
    const out = await runCapture(run.command, run.args, { cwd: root, env: run.env, timeoutMs: 20_000 });
    await box.close();
    const startMs = Math.round(performance.now() - t0);
    const seen = new Map(
      out.stdout
        .split('\n')
        .map((line) => line.split(' '))
        .map(([k, v]) => [k ?? '', v ?? ''] as const),
    );
    const home = process.env.HOME;
    const homeLeaked = home ? existsSync(join(home, '.star-loop-probe')) : false;
    const filtered = decision.network === 'filtered';
    const boundaries: Boundary[] = [
      {
        name: 'processes',
        enforced: Number(seen.get('procs') ?? 99) < 10,
        detail: 'its own PID namespace: every process an agent or a gate starts ends with it',
      },
      {
        name: 'files',
        enforced: seen.get('tree') === 'yes' && seen.get('outside') === 'no',
        detail: 'writes only in the work tree (and the agent’s own folders); .git, .star and the rest read-only',
      },
      {
        name: 'credentials',
        enforced: seen.get('secrets') === '0' && !homeLeaked,
        detail: '$HOME is an empty scratch folder: ~/.ssh, ~/.git-credentials, ~/.config/gh, cloud CLIs unreadable',
      },
      {
        name: 'network',
        enforced: filtered && seen.get('nics') === '1' && seen.get('proxy') === 'yes',
        detail: filtered
          ? "no network of its own: only the agent's hosts, through star-loop's proxy"
          : 'NOT limited: socat is not on PATH (install socat)',
      },
      {
        name: 'gates',
        enforced: true,
        detail: 'run on a clean copy of the commit being judged, in the sandbox, with no network unless configured',
      },
    ];
    if (out.exitCode !== 0) {
      const why = out.stderr.trim().split('\n')[0] ?? `exit ${out.exitCode}`;
      for (const b of boundaries) {
        b.enforced = false;
        b.detail = `the trial sandbox failed: ${why}`;
      }
    }
    return { support, boundaries, startMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
