export interface MovementInput {
  startHead?: string;
  endHead?: string;
  /** Trees of the start and end commits: equal trees mean no content changed, whatever was committed. */
  startTree?: string;
  endTree?: string;
  filesChanged: number;
  acceptedStories: readonly string[];
  taskAccepted: boolean;
  planChanged: boolean;
}

/**
 * Progress is judged on the repository, never on the agent's words: HEAD moved to different content,
 * files changed, a story (or the task) was accepted, or the task's plan changed.
 */
export function measureMovement(input: MovementInput): { moved: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (input.startHead !== input.endHead && input.startTree !== input.endTree) reasons.push('HEAD moved');
  if (input.filesChanged > 0) reasons.push(`${input.filesChanged} file(s) changed`);
  for (const story of input.acceptedStories) reasons.push(`${story} accepted`);
  if (input.taskAccepted) reasons.push('task accepted');
  if (input.planChanged) reasons.push('plan updated');
  return { moved: reasons.length > 0, reasons };
}

/** Summaries compared loosely: the same words in the same order, ignoring case, numbers and spacing. */
export function sameSummary(a?: string, b?: string): boolean {
  if (!a || !b) return false;
  const norm = (s: string) => s.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
  return norm(a) === norm(b);
}
