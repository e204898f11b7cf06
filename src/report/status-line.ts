import type { LoopEventWithTime } from '../loop/events.js';
import { formatUsd } from '../usage/sum-usage.js';
import { formatDuration } from '../util/parse-duration.js';

/** What the live status line shows, folded from the events (pure). */
export interface LiveStatus {
  startedAt?: number;
  iteration?: number;
  index?: number;
  maxIterations?: number;
  story?: string;
  phase: 'recon' | 'baseline' | 'agent' | 'gates' | 'verifier' | 'between';
  costUsd: number;
  lastVerdict?: string;
  activity?: string;
}

export function initialStatus(): LiveStatus {
  return { phase: 'recon', costUsd: 0 };
}

export function foldStatus(status: LiveStatus, event: LoopEventWithTime): LiveStatus {
  switch (event.type) {
    case 'run.started':
      return { ...status, startedAt: Date.parse(event.time), phase: 'baseline' };
    case 'iteration.started':
      return {
        ...status,
        iteration: event.iteration,
        index: event.index,
        maxIterations: event.maxIterations,
        story: event.story,
        phase: 'agent',
        activity: undefined,
      };
    case 'agent.activity':
      return { ...status, activity: event.text };
    case 'agent.finished':
      return { ...status, phase: 'gates', costUsd: status.costUsd + (event.costUsd ?? 0), activity: undefined };
    case 'verifier.started':
      return { ...status, phase: 'verifier' };
    case 'claim.verdict':
      return {
        ...status,
        lastVerdict: `${event.verdict}${event.stories.length ? ` ${event.stories.join(', ')}` : ''}`,
      };
    case 'iteration.finished':
      return { ...status, phase: 'between' };
    default:
      return status;
  }
}

/** One line, cut to the terminal's width so it can be redrawn in place. */
export function renderStatusLine(status: LiveStatus, now: number, columns: number): string {
  const parts = [
    status.iteration !== undefined
      ? `iteration ${status.index}/${status.maxIterations} (#${status.iteration})`
      : 'star-loop',
    status.story,
    status.phase,
    status.startedAt !== undefined ? formatDuration(now - status.startedAt) : undefined,
    status.costUsd > 0 ? formatUsd(status.costUsd) : undefined,
    status.lastVerdict ? `last: ${status.lastVerdict}` : undefined,
    status.activity,
  ].filter(Boolean);
  const line = `⟳ ${parts.join(' · ')}`;
  return line.length > columns - 1 ? `${line.slice(0, Math.max(10, columns - 2))}…` : line;
}
