import { InputError } from '../errors.js';
import type { AgentAdapter } from './agent-adapter.js';
import { aiderAdapter } from './aider/aider-adapter.js';
import { ampAdapter } from './amp/amp-adapter.js';
import { claudeAdapter } from './claude/claude-adapter.js';
import { codexAdapter } from './codex/codex-adapter.js';
import { commandAdapter } from './command/command-adapter.js';
import { cursorAdapter } from './cursor/cursor-adapter.js';
import { demoAdapter } from './demo/demo-adapter.js';
import { geminiAdapter } from './gemini/gemini-adapter.js';
import { grokAdapter } from './grok/grok-adapter.js';
import { opencodeAdapter } from './opencode/opencode-adapter.js';

export const agentAdapters = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  opencode: opencodeAdapter,
  amp: ampAdapter,
  'cursor-agent': cursorAdapter,
  grok: grokAdapter,
  aider: aiderAdapter,
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
