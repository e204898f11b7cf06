import type { Gate } from '../gates/gate.js';
import type { Story } from '../prd/prd-schema.js';
import { renderTemplate, type Templates } from './render-template.js';

export interface VerifierPromptInput {
  templates: Templates;
  iteration: number;
  story?: Story;
  task?: string;
  /** The implementer's own words (not evidence). */
  summary?: string;
  base: string;
  head: string;
  /** `hash subject` of the claimed commits, newest first. */
  commits: readonly string[];
  gates: readonly Gate[];
  /** Where the verdict goes, as the prompt names it. */
  verdictFile: string;
  /** What star-loop's own runs of the tests showed (src/prompt/describe-test-evidence.ts). */
  evidence?: readonly string[];
}

/** The adversarial verifier's brief (prompts/verify.md): the claim, the commits, the gates, the verdict's format. */
export function buildVerifierPrompt(input: VerifierPromptInput): string {
  const { story } = input;
  return renderTemplate('verify', input.templates, {
    iteration: input.iteration,
    storyId: story?.id,
    storyTitle: story?.title,
    storyDescription: story?.description,
    acceptanceCriteria: (story?.acceptanceCriteria ?? []).map((c) => `- ${c}`).join('\n') || undefined,
    task: input.task,
    summary: input.summary,
    base: input.base.slice(0, 12),
    head: input.head.slice(0, 12),
    commits: input.commits.map((c) => `- ${c}`).join('\n') || '(no commits)',
    gates:
      input.gates.length > 0
        ? input.gates.map((g) => `   - ${g.name}: \`${g.command}\``).join('\n')
        : '   (no gates were found: inspect by reading and running the code)',
    verdictFile: input.verdictFile,
    evidence: input.evidence?.length ? input.evidence.map((l) => `- ${l}`).join('\n') : undefined,
  });
}
