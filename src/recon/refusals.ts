import type { AgentAdapter } from '../agents/agent-adapter.js';
import { InputError, RefusedError } from '../errors.js';
import { Git } from '../git/git.js';
import type { SandboxDecision } from '../sandbox/decide-sandbox.js';
import { uncoveredCostBudget } from '../usage/check-budgets.js';

/** The repository around `cwd`, or exit 2 with `hint` (each command says where it should be run). */
export async function repositoryRoot(cwd: string, hint: string): Promise<string> {
  const root = await Git.topLevel(cwd);
  if (!root) throw new InputError(`${cwd} is not inside a git repository`, hint);
  return root;
}

/** --max-cost with agents that can report neither cost nor tokens could never stop a run: exit 2. */
export function refuseUnmeasurableCost(
  options: { maxCostUsd?: number; maxTimeMs?: number },
  agents: ReadonlyArray<Pick<AgentAdapter, 'name' | 'capabilities'>>,
): void {
  const uncovered = uncoveredCostBudget(options, agents);
  if (uncovered)
    throw new InputError(
      uncovered,
      'also give --max-time (it bounds what cost cannot), or use an agent that reports its cost',
    );
}

/** A run or fleet needs a first commit (progress is measured against commits) and its agent on PATH: exit 4. */
export function refuseToStart(input: {
  head?: string;
  agent: AgentAdapter;
  agentCmd?: string;
  agentFound: boolean;
  sandbox: SandboxDecision;
}): void {
  if (input.sandbox.refuse) {
    throw new RefusedError(
      `--sandbox required, but no sandbox can be had here: ${input.sandbox.refuse}`,
      'install bubblewrap and socat, or run with --sandbox auto (it says what is not contained)',
    );
  }
  if (!input.head) {
    throw new RefusedError(
      'the repository has no commits yet',
      'make a first commit (`git add -A && git commit -m "initial commit"`), then run again',
    );
  }
  if (!input.agentFound) {
    throw new RefusedError(
      `agent "${input.agent.name}": \`${input.agent.executable({ agentCmd: input.agentCmd })}\` was not found on PATH`,
      'install the agent CLI, or choose another with --agent',
    );
  }
}

/** A branch name git would refuse (`-f`, `HEAD`, `a..b`) is bad input, named with where it came from: exit 2. */
export async function refuseBadBranchName(git: Git, name: string | undefined, source: string): Promise<void> {
  if (name === undefined) return;
  const problem = await git.branchNameProblem(name);
  if (problem)
    throw new InputError(
      `${source} "${name}" is not a branch name git accepts: ${problem}`,
      'use a name such as "star-loop/feature" (letters, digits, "/", "-", "."; no "..", no leading "-")',
    );
}
