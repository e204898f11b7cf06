import { pino } from 'pino';

/** What the log needs of an event: its type (a `warning` is logged at level warn) and its time stamp. */
export interface LoggedEvent {
  type: string;
  time: string;
}

/**
 * The run's NDJSON log (`.star/log.jsonl`): every loop event, written synchronously so nothing is lost
 * when the process is killed.
 */
export function createEventLogger(file: string): { log: (event: LoggedEvent) => void; close: () => void } {
  const destination = pino.destination({ dest: file, sync: true, append: true, mkdir: true });
  const logger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  return {
    log(event) {
      const { type, time: _time, ...rest } = event as LoggedEvent & Record<string, unknown>;
      const level = event.type === 'warning' ? 'warn' : 'info';
      logger[level]({ event: type, ...rest }, type);
    },
    close() {
      destination.flushSync();
    },
  };
}
