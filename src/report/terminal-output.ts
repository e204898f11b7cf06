import type { LoopEventWithTime } from '../loop/events.js';
import { renderEventLine } from './render-event-line.js';

/** The only place (with the CLI entry) that writes to the terminal. */
export function terminalSubscriber(json: boolean): (event: LoopEventWithTime) => void {
  if (json) return (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
  return (event) => {
    const line = renderEventLine(event);
    if (line !== undefined) process.stdout.write(`${line}\n`);
  };
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}
