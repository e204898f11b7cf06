import type { IterationRecord } from '../state/state-schema.js';

const MAX_SUMMARY = 240;

/** One short journal entry per iteration: what a fresh agent needs to know about it, nothing more. */
export function journalEntry(record: IterationRecord): string {
  const head = [
    String(record.n).padStart(4, '0'),
    record.startedAt.slice(0, 16).replace('T', ' '),
    record.story,
    record.verdict,
  ]
    .filter(Boolean)
    .join(' · ');
  const lines = [`## ${head}`];
  lines.push(
    `- moved: ` +
      `${record.moved ? `yes (${record.movement.join(', ')})` : 'no'}${
        record.repeated ? ' — same summary as the previous iteration' : ''
      }`,
  );
  if (record.claim) {
    const outcome =
      record.verdict === 'rejected'
        ? `rejected: ${record.findings
            .map((f) => f.detail)
            .slice(0, 2)
            .join('; ')}`
        : record.verdict;
    lines.push(`- claim (${record.claim.sources.join(', ')}): ${outcome}`);
  }
  for (const note of record.claimNotes) lines.push(`- note: ${note}`);
  if (record.agent.timedOut) lines.push('- the agent timed out');
  else if (record.agent.isError) lines.push(`- agent error: ${(record.agent.error ?? '').slice(0, MAX_SUMMARY)}`);
  if (record.summary) {
    const s = record.summary.replace(/\s+/g, ' ');
    lines.push(`- agent's summary: ${s.length > MAX_SUMMARY ? `${s.slice(0, MAX_SUMMARY)}…` : s}`);
  }
  return lines.join('\n');
}
