import { InputError } from '../errors.js';
import type { AgentAdapter } from './agent-adapter.js';
import { claudeAdapter } from './claude/claude-adapter.js';
import { commandAdapter } from './command/command-adapter.js';
import { demoAdapter } from './demo/demo-adapter.js';

export const agentAdapters = {
  claude: claudeAdapter,
  command: commandAdapter,
  demo: demoAdapter,
} satisfies Record<string, AgentAdapter>;

export type AgentName = keyof typeof agentAdapters;

export function getAgentAdapter(name: string): AgentAdapter {
  if (Object.hasOwn(agentAdapters, name)) return agentAdapters[name as AgentName];
  throw new InputError(
    `--agent ${name}: unknown agent`,
    `use one of: ${Object.keys(agentAdapters).join(', ')} (or --agent command --agent-cmd "CMD")`,
  );
}
