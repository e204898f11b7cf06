import type { LoopEventWithTime } from '../loop/events.js';
import type { OutputMode } from './output-mode.js';
import { renderEventLine } from './render-event-line.js';
import { foldStatus, initialStatus, renderStatusLine } from './status-line.js';

const ESC = '\u001b[';
const paint = (color: boolean, code: string, text: string) => (color ? `${ESC}${code}m${text}${ESC}0m` : text);

// ✔ ✘ ▶ as escapes: the bundle is ASCII, so it loads as one-byte text (scripts/build.mjs checks).
function colorize(line: string, color: boolean): string {
  if (!color) return line;
  if (/^\s*\u2714/.test(line)) return paint(color, '32', line);
  if (/^\s*\u2718|SAFETY/.test(line)) return paint(color, '31', line);
  if (/^\s*warning:/.test(line)) return paint(color, '33', line);
  if (/^\u25b6|^\nstar-loop:|^star-loop:/.test(line)) return paint(color, '1', line);
  return line;
}

/** HH:MM:SS of an ISO time, the prefix of every plain output line. */
export const clock = (iso: string) => iso.slice(11, 19);

/**
 * The only place (with the CLI entry) that writes to the terminal. `json`: one event per line. `plain`
 * (not a terminal, or CI): timestamped lines, no escape codes unless FORCE_COLOR. `live`: the same lines,
 * plus one status line at the bottom redrawn in place — it never adds to the scrollback.
 */
export function terminalSubscriber(
  mode: OutputMode,
  out: NodeJS.WriteStream = process.stdout,
): { onEvent: (event: LoopEventWithTime) => void; agentLine: (line: string) => void; close: () => void } {
  if (mode.kind === 'json') {
    return { onEvent: (event) => out.write(`${JSON.stringify(event)}\n`), agentLine: () => {}, close: () => {} };
  }
  if (mode.kind === 'plain') {
    const write = (text: string, time: string) => {
      for (const line of text.replace(/^\n/, '').split('\n'))
        out.write(`${clock(time)} ${colorize(line, mode.color)}\n`);
    };
    return {
      onEvent: (event) => {
        const line = event.type === 'agent.activity' ? undefined : renderEventLine(event);
        if (line !== undefined) write(line, event.time);
      },
      agentLine: (line) => write(`  │ ${line}`, new Date().toISOString()),
      close: () => {},
    };
  }
  let status = initialStatus();
  let shown = false;
  const columns = () => out.columns || 100;
  const clear = () => {
    if (shown) out.write(`\r${ESC}2K`);
    shown = false;
  };
  const draw = () => {
    out.write(`\r${ESC}2K${paint(mode.color, '2', renderStatusLine(status, Date.now(), columns()))}`);
    shown = true;
  };
  const above = (text: string) => {
    clear();
    out.write(
      `${text
        .split('\n')
        .map((l) => colorize(l, mode.color))
        .join('\n')}\n`,
    );
    draw();
  };
  const ticker = setInterval(() => shown && draw(), 1000);
  ticker.unref();
  return {
    onEvent: (event) => {
      status = foldStatus(status, event);
      const line = event.type === 'agent.activity' ? undefined : renderEventLine(event);
      if (line !== undefined) above(line);
      else draw();
      if (event.type === 'run.finished') {
        clear();
        clearInterval(ticker);
      }
    },
    agentLine: (line) => above(`  │ ${line}`),
    close: () => {
      clearInterval(ticker);
      clear();
    },
  };
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}
