import type { FleetEvent } from '../fleet/fleet-events.js';
import { formatDuration } from '../util/parse-duration.js';
import { renderEventLine } from './render-event-line.js';
import { clock, printLine } from './terminal-output.js';

/** The worker events worth a line in the fleet's human output (the rest are in its log). */
const SHOWN: ReadonlySet<string> = new Set([
  'iteration.started',
  'claim.verdict',
  'verifier.started',
  'agent.rate-limited',
  'warning',
]);

/** One concise human line (or none) per fleet event. Pure. */
export function renderFleetLine(event: FleetEvent): string | undefined {
  switch (event.type) {
    case 'fleet.started':
      return (
        `star-loop fleet ${event.fleetId}${event.continued ? ' (continued)' : ''}: ${event.workers} workers ` +
        `on ${event.branch}; queue: ${event.queue.join(', ') || 'empty'}`
      );
    case 'worker.started':
      return (
        `[w${event.slot}] ${event.story} attempt ${event.attempt}: ` +
        `${event.continued ? 'continuing' : 'started'} on ${event.branch} in ${event.worktree}`
      );
    case 'worker.event': {
      if (!SHOWN.has(event.event.type)) return undefined;
      const line = renderEventLine(event.event);
      return line === undefined ? undefined : `[w${event.slot} ${event.story}] ${line.trim().split('\n')[0]}`;
    }
    case 'worker.finished':
      return (
        `[w${event.slot}] ${event.story} attempt ${event.attempt}: ` +
        `${event.outcome}${event.exitCode !== undefined ? ` (exit ${event.exitCode})` : ''} — ${event.detail}`
      );
    case 'merge.started':
      return `merging ${event.story} (attempt ${event.attempt}): gates on the merged result`;
    case 'gate.running':
      return `gate ${event.gate}: still running (${formatDuration(event.elapsedMs)})`;
    case 'story.merged':
      return `✔ ${event.story} merged as #${event.order} (${event.commit.slice(0, 10)})`;
    case 'story.returned':
      return (
        `↺ ${event.story} attempt ${event.attempt}: ${event.why} — ${event.detail}; ` +
        `${event.next === 'park' ? 'parked for a human' : 'back to the queue'}`
      );
    case 'story.parked':
      return `⏸ ${event.story} parked for a human: ${event.detail}`;
    case 'warning':
      return `warning: ${event.message}`;
    case 'fleet.finished':
      return [
        '',
        `star-loop fleet: ${event.stopReason} — ${event.detail} (exit ${event.exitCode})`,
        `  merged ${event.merged.join(', ') || 'nothing'}; parked ${event.parked.join(', ') || 'nothing'}; ` +
          `remaining ${event.remaining.join(', ') || 'nothing'}`,
        `  report: ${event.reportFile}`,
      ].join('\n');
  }
}

/**
 * The fleet's terminal: with --json every event as one line, otherwise the concise human lines with their
 * clock time (a fleet's output is plain: it interleaves several workers).
 */
export function fleetTerminalSubscriber(json: boolean): (event: FleetEvent & { time: string }) => void {
  return (event) => {
    if (json) return printLine(JSON.stringify(event));
    const line = renderFleetLine(event);
    if (line !== undefined) for (const l of line.replace(/^\n/, '').split('\n')) printLine(`${clock(event.time)} ${l}`);
  };
}
