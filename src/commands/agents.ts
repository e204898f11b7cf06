import type { AgentCapabilities } from '../agents/agent-adapter.js';
import { agentAdapters } from '../agents/registry.js';
import { ExitCode } from '../errors.js';
import { findExecutable } from '../proc/find-executable.js';
import { runCapture } from '../proc/run-capture.js';
import { printLine } from '../report/terminal-output.js';

export interface AgentListing {
  name: string;
  description: string;
  executable: string;
  /** Absolute path on PATH, if found. */
  path?: string;
  version?: string;
  capabilities: AgentCapabilities;
}

const CAPABILITY_LABELS: ReadonlyArray<readonly [keyof AgentCapabilities, string]> = [
  ['structuredOutput', 'structured output'],
  ['sessionId', 'session id'],
  ['tokens', 'tokens'],
  ['cost', 'cost'],
  ['rateLimitSignal', 'rate-limit signal'],
  ['permissionDenials', 'permission denials'],
  ['budgetFlags', 'budget flags'],
];

/** The first line of `<cli> --version`, bounded in time (a CLI that hangs is "unknown"). */
async function versionOf(path: string): Promise<string | undefined> {
  const out = await runCapture(path, ['--version'], { cwd: process.cwd(), timeoutMs: 10_000 }).catch(() => undefined);
  if (out?.exitCode !== 0) return undefined;
  return (out.stdout.trim() || out.stderr.trim()).split('\n')[0]?.slice(0, 80);
}

export async function listAgents(): Promise<AgentListing[]> {
  return Promise.all(
    Object.values(agentAdapters).map(async (adapter) => {
      const executable = adapter.executable({ agentCmd: undefined });
      const path = adapter.name === 'demo' ? executable : await findExecutable(executable);
      const version = path && adapter.name !== 'command' && adapter.name !== 'demo' ? await versionOf(path) : undefined;
      return {
        name: adapter.name,
        description: adapter.description,
        executable,
        path,
        version,
        capabilities: adapter.capabilities,
      };
    }),
  );
}

export function renderAgents(list: readonly AgentListing[]): string {
  const lines = [
    'Agents (--agent NAME); capabilities: what star-loop can read from each (— shows as "unknown" in reports)',
    '',
  ];
  for (const a of list) {
    const found = a.path
      ? `found: ${a.path}${a.version ? ` (${a.version})` : ''}`
      : `not on PATH (\`${a.executable}\`)`;
    lines.push(`${a.name.padEnd(13)} ${found}`);
    lines.push(`${''.padEnd(13)} ${a.description}`);
    lines.push(
      `${''.padEnd(13)} ` +
        `${CAPABILITY_LABELS.map(([key, label]) => `${a.capabilities[key] ? '✓' : '—'} ${label}`).join('  ')}`,
    );
  }
  return lines.join('\n');
}

export async function agentsCommand(flags: { json?: boolean }): Promise<ExitCode> {
  const list = await listAgents();
  printLine(flags.json ? JSON.stringify({ agents: list }) : renderAgents(list));
  return ExitCode.Complete;
}
