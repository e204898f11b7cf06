import type { Gate } from '../gates/gate.js';
import type { Prd, Story } from '../prd/prd-schema.js';
import { orderStories } from '../prd/select-next-story.js';
import { formatFindings } from '../prompt/format-findings.js';
import type { Finding } from '../state/finding-schema.js';
import { renderTemplate, type Templates } from './render-template.js';

const MAX_PLAN_CHARS = 8000;
const MAX_HINTS_CHARS = 4000;

export interface PromptInput {
  templates: Templates;
  iteration: number;
  gates: readonly Gate[];
  findings: readonly Finding[];
  /** Whether the findings rejected a claim (or came from `--verify every` checking work without one). */
  findingsFromClaim?: boolean;
  /** Hints from .star/hints.md, given to one iteration; `fromHuman` false: an agent could have written them. */
  hints?: { text: string; fromHuman: boolean };
  /** Already bounded by the journal reader. */
  journalTail: string;
  claimFile: string;
  prd?: { file: string; prd: Prd; story: Story; passed: ReadonlySet<string> };
  task?: { text: string; planFile: string; plan?: string };
}

function gateList(gates: readonly Gate[]): string {
  if (gates.length === 0) return '(no gates were found in this repository: your work will be checked by inspection)';
  return gates.map((g) => `- ${g.name}: \`${g.command}\``).join('\n');
}

function backlog(prd: Prd, passed: ReadonlySet<string>, current: string): string {
  return orderStories(prd)
    .map(
      (s) => `- [${passed.has(s.id) ? 'x' : ' '}] ${s.id}: ${s.title}${s.id === current ? '  ← this iteration' : ''}`,
    )
    .join('\n');
}

const capHints = (text: string) =>
  text.length > MAX_HINTS_CHARS ? `${text.slice(0, MAX_HINTS_CHARS)}\n… (hints truncated)` : text;

/**
 * The implementer's prompt. Its size is bounded whatever the iteration count: the story, backlog, task and
 * gates are fixed for the run, findings and the plan are capped, and the journal tail is read to a fixed size.
 */
export function buildPrompt(input: PromptInput): string {
  const common = {
    iteration: input.iteration,
    gates: gateList(input.gates),
    findings: input.findings.length > 0 ? formatFindings(input.findings) : undefined,
    findingsFromClaim: input.findingsFromClaim ?? true,
    journal: input.journalTail || undefined,
    hints: input.hints?.fromHuman ? capHints(input.hints.text) : undefined,
    hintsUnverified: input.hints && !input.hints.fromHuman ? capHints(input.hints.text) : undefined,
    claimFile: input.claimFile,
  };
  if (input.prd) {
    const { story, prd, file, passed } = input.prd;
    return renderTemplate('implement-prd', input.templates, {
      ...common,
      prdFile: file,
      storyId: story.id,
      storyTitle: story.title,
      storyDescription: story.description,
      acceptanceCriteria: (story.acceptanceCriteria ?? []).map((c) => `- ${c}`).join('\n') || undefined,
      storyNotes: story.notes || undefined,
      backlog: backlog(prd, passed, story.id),
    });
  }
  if (!input.task) throw new Error('buildPrompt needs a story or a task');
  const plan = input.task.plan?.trim();
  return renderTemplate('implement-task', input.templates, {
    ...common,
    task: input.task.text,
    planFile: input.task.planFile,
    planExists: Boolean(plan),
    plan:
      plan && plan.length > MAX_PLAN_CHARS
        ? `${plan.slice(0, MAX_PLAN_CHARS)}\n… (plan truncated; keep it short)`
        : plan,
  });
}
