import type { SandboxSupport } from './probe-sandbox.js';

export type SandboxMode = 'auto' | 'required' | 'off';

/** What the sandbox leaves uncontained, boundary by boundary, when it is not used. */
export const UNCONTAINED = [
  'git history and refs (the agent can write .git; history, pushes and pins are only checked after the fact)',
  'processes (the agent can leave processes running past its iteration)',
  'the network (the agent can push, fetch code or send data anywhere)',
  'files outside the work tree, including ~/.gitconfig and credential stores',
  "the gates (they run with the agent's files around them)",
];

export interface SandboxDecision {
  /** Agents and gates run in a sandbox. */
  active: boolean;
  /** The agent's network: limited to allowed hosts (socat on PATH), or not limited (socat missing). */
  network: 'filtered' | 'open';
  /** One line for the plan and the report. */
  detail: string;
  /** Said loudly at start, in the plan and in the report. */
  warnings: string[];
  /** --sandbox required where it cannot be had: the run is refused (exit 4) with this reason. */
  refuse?: string;
}

/** Whether this run uses the sandbox, from --sandbox and what the machine supports (pure). */
export function decideSandbox(mode: SandboxMode, support: SandboxSupport): SandboxDecision {
  const version = support.version ? ` (${support.version})` : '';
  if (mode === 'off') {
    return {
      active: false,
      network: 'open',
      detail: 'OFF (--sandbox off): agents and gates run as you, with your files, git and network',
      warnings: [`SANDBOX OFF (--sandbox off): not contained — ${UNCONTAINED.join('; ')}`],
    };
  }
  if (!support.works) {
    const reason = support.reason ?? 'not available';
    if (mode === 'required')
      return { active: false, network: 'open', detail: `REQUIRED but ${reason}`, warnings: [], refuse: reason };
    return {
      active: false,
      network: 'open',
      detail: `NOT AVAILABLE — ${reason}`,
      warnings: [`NO SANDBOX: ${reason}. Not contained — ${UNCONTAINED.join('; ')}`],
    };
  }
  if (!support.socat) {
    const reason = 'socat is not on PATH, so the network cannot be limited to allowed hosts (install socat)';
    if (mode === 'required')
      return { active: false, network: 'open', detail: `REQUIRED but ${reason}`, warnings: [], refuse: reason };
    return {
      active: true,
      network: 'open',
      detail: `on: bubblewrap${version}; the network is NOT limited (socat missing)`,
      warnings: [`SANDBOX WITHOUT NETWORK LIMITS: ${reason}; the agent can reach any host`],
    };
  }
  return {
    active: true,
    network: 'filtered',
    detail:
      `on: bubblewrap${version}; writes only in the work tree, .git read-only, ` +
      "the network limited to the agent's hosts",
    warnings: [],
  };
}
