import type { AgentOutput } from '../agents/agent-adapter.js';
import type { hazards } from '../state/state-schema.js';

export type Hazard = (typeof hazards)[number];

export interface HazardInput {
  output: AgentOutput;
  exitCode?: number;
  /** The agent's run failed (error result, timeout, non-zero exit): reported as an error, not a hazard. */
  failed: boolean;
  claimed: boolean;
  moved: boolean;
}

/** The final message's last line ends with a question mark: the agent stopped to ask, and nobody answers. */
export function askedQuestion(finalMessage: string): string | undefined {
  const last = finalMessage
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  return last && /\?\s*[*_`)"']*$/.test(last) ? last.slice(0, 300) : undefined;
}

export interface HazardHit {
  name: Hazard;
  /** What showed it: the question asked, or how many tool calls were refused. */
  evidence?: string;
}

/**
 * Pure: which hazard, if any, an iteration that did no work shows. Work done (movement) or a claim is
 * never a hazard; the adapter's structured output (denials, tool calls, plan mode) decides where it has one.
 */
export function detectHazard(input: HazardInput): HazardHit | undefined {
  const { output } = input;
  if (input.moved || input.claimed) return undefined;
  if ((output.permissionDenials ?? 0) > 0)
    return { name: 'permission-denied', evidence: `${output.permissionDenials} tool call(s) refused` };
  if (output.planMode) return { name: 'plan-mode' };
  if (input.failed) return undefined;
  const question = askedQuestion(output.finalMessage);
  if (question) return { name: 'asked-question', evidence: question };
  if (output.toolCalls === 0) return { name: 'no-tool-calls' };
  if (input.exitCode === 0) return { name: 'idle-exit' };
  return undefined;
}

/**
 * Hazards that repeating will not fix stop the run at once. The others are a stall with a name: they stop
 * (or pause, or continue, per --on-stall) after --stall-after iterations in a row, like any stall.
 */
export const HARD_HAZARDS: ReadonlySet<Hazard> = new Set(['permission-denied', 'plan-mode']);

/** What the report says, and what to do about it. */
export function describeHazard(hit: HazardHit, count: number): string {
  switch (hit.name) {
    case 'permission-denied':
      return (
        `the agent was refused tool calls (${hit.evidence ?? '?'}) and changed nothing: it cannot work ` +
        `headless with these permissions (check the agent's settings for deny rules or a managed policy)`
      );
    case 'plan-mode':
      return (
        'the agent switched to plan mode and waited for an approval that never comes headless: remove a ' +
        "default plan mode from the agent's settings"
      );
    case 'asked-question':
      return (
        `the agent stopped to ask a question ${count} iterations in a row ("${hit.evidence ?? ''}"): answer ` +
        `it in .star/hints.md, then \`star-loop resume\``
      );
    case 'no-tool-calls':
      return (
        `the agent answered without using a single tool ${count} iterations in a row: check that its model ` +
        `can call tools (--model)`
      );
    case 'idle-exit':
      return `the agent exited 0 ${count} iterations in a row without a claim and without changing anything`;
  }
}

/** Told to the next fresh agent, so it does not repeat the last one's mistake. */
export function hazardFinding(hit: HazardHit): { rule: string; detail: string } {
  const detail: Record<Hazard, string> = {
    'asked-question':
      `The previous agent stopped to ask: "${hit.evidence ?? ''}". Nobody answers questions in ` +
      `this loop: make the most reasonable choice yourself, write it down in your notes, and do ` +
      `the work.`,
    'permission-denied': 'The previous agent was refused its tool calls and changed nothing.',
    'plan-mode': 'The previous agent went into plan mode. Nobody approves plans in this loop: do the work.',
    'no-tool-calls':
      'The previous agent only wrote text and used no tools. Use your tools to change the files and run the checks.',
    'idle-exit':
      'The previous agent exited without changing anything and without a claim. Do the work of the current story.',
  };
  return { rule: `hazard:${hit.name}`, detail: detail[hit.name] };
}
