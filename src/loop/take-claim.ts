import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentOutput } from '../agents/agent-adapter.js';
import { readClaimFile } from '../state/read-claim-file.js';
import type { IterationStart } from './begin-iteration.js';
import { type CollectedClaim, collectClaim, hasPromise } from './collect-claim.js';
import type { LoopContext } from './loop-context.js';

/** The last line of the agent's final message (its promise aside), as a summary when the claim has none. */
function lastLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !hasPromise(l));
  return lines.at(-1)?.slice(0, 300);
}

/**
 * The claim: the claim file star-loop handed out (kept as read in the iteration's folder), the promise on
 * its own line of the final message, or the agent's own `passes` flips. `notes` gathers what was said of it.
 */
export async function takeClaim(
  ctx: LoopContext,
  start: IterationStart,
  output: AgentOutput,
  flipped: string[],
  notes: string[],
): Promise<{ collected: CollectedClaim; summary?: string }> {
  const claimFile = await readClaimFile(ctx.paths.claim);
  const { redact } = ctx.redactor;
  if (claimFile.kind !== 'absent') await writeFile(join(start.runDir, 'claim.json'), redact(claimFile.text), 'utf8');
  const collected = collectClaim({
    mode: ctx.options.mode,
    claimFile,
    // An error result (API failure, max turns) is not the agent's answer, whatever its text says.
    finalMessage: output.isError ? '' : output.finalMessage,
    selectedStory: start.story?.id,
    flippedStories: flipped,
    storyIds: new Set(start.passesBefore.keys()),
    passed: start.passed,
  });
  // What the agent says goes into the state, the journal, commit messages and later prompts: secrets never do.
  if (collected.claim?.summary) collected.claim.summary = redact(collected.claim.summary);
  const said = collected.summary ?? lastLine(output.finalMessage);
  notes.push(...collected.notes.map(redact));
  ctx.emit({ type: 'claim.read', iteration: start.n, claim: collected.claim, notes });
  return { collected, summary: said === undefined ? undefined : redact(said) };
}
