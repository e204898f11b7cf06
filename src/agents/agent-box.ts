import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { AgentAdapter, AgentInvocation } from './agent-adapter.js';
import { agentBoxNeeds } from './sandbox-needs.js';

/** An agent run's sandbox: how to run in it, and what to do once the run is over. */
export interface AgentBox {
  wrap: (invocation: AgentInvocation) => AgentInvocation;
  /**
   * Copies the files the agent may hand back (its claim, its plan, a verdict) out of its scratch `.star`,
   * after every process in the sandbox has ended, then removes the scratch. Returns the hosts refused.
   */
  finish(harvest: ReadonlyArray<{ from: string; to: string }>): Promise<{ denied: string[] }>;
  /** The agent's `.star` inside the sandbox (a scratch folder on the host). */
  scratch: string;
}

export interface AgentBoxInput {
  sandbox: Sandbox;
  /** The agents of this run (an implementer and its fallback run in the same box). */
  adapters: ReadonlyArray<AgentAdapter | undefined>;
  env: NodeJS.ProcessEnv;
  /** star-loop's real `.star`: never mounted; `files` are copied from it into the scratch. */
  starDir: string;
  /** Paths relative to `.star` copied into the scratch `.star` (the prompt, the plan, the journal). */
  files: readonly string[];
  /** Paths relative to the root that stay read-only (existing protected files and folders, the prompt file). */
  readOnly: readonly string[];
  /** A throw-away tree mounted in the work tree's place (the verifier); the work tree itself if absent. */
  tree?: string;
}

/** What a handed-back file may be: a regular file (a symlink would read a host file), of a sane size. */
const MAX_HANDED_BACK = 1024 * 1024;

async function readHandedBack(path: string): Promise<Buffer | undefined> {
  const st = await lstat(path).catch(() => undefined);
  if (!st?.isFile() || st.size > MAX_HANDED_BACK) return undefined;
  return readFile(path).catch(() => undefined);
}

/**
 * A sandbox for one agent run: the work tree (or `tree`) writable, `readOnly` not, the agents' own folders
 * and hosts, and a scratch `.star` holding copies of `files` — star-loop's real `.star` stays out of reach,
 * so nothing the agent leaves there is read before the sandbox is gone.
 */
export async function openAgentBox(input: AgentBoxInput): Promise<AgentBox> {
  const needs = agentBoxNeeds(
    input.adapters.filter((a): a is AgentAdapter => a !== undefined),
    input.env,
  );
  const box = await input.sandbox.box({
    tree: input.tree,
    treeWritable: true,
    hosts: needs.hosts,
    homeWritable: needs.homeWritable,
    writable: needs.writable,
    readOnly: input.readOnly,
    visible: needs.files,
    starScratch: true,
  });
  const scratch = box.spec.starScratch as string;
  for (const file of input.files) {
    const text = await readFile(join(input.starDir, file)).catch(() => undefined);
    if (text === undefined) continue;
    await mkdir(dirname(join(scratch, file)), { recursive: true });
    await writeFile(join(scratch, file), text);
  }
  return {
    scratch,
    wrap: (invocation) => box.wrap(invocation),
    async finish(harvest) {
      for (const { from, to } of harvest) {
        const text = await readHandedBack(join(scratch, from));
        if (text !== undefined) await writeFile(to, text);
      }
      return box.close();
    },
  };
}
