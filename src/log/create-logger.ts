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
  // A log that cannot be written (the disk full) is said once on stderr; the run's stop is decided elsewhere.
  let failed = false;
  const guard = (write: () => void) => {
    if (failed) return;
    try {
      write();
    } catch (error) {
      failed = true;
      process.stderr.write(`star-loop: ${file} can no longer be written: ${(error as Error).message}\n`);
    }
  };
  destination.on('error', () => {
    failed = true;
  });
  return {
    log(event) {
      const { type, time: _time, ...rest } = event as LoggedEvent & Record<string, unknown>;
      const level = event.type === 'warning' ? 'warn' : 'info';
      guard(() => logger[level]({ event: type, ...rest }, type));
    },
    close() {
      guard(() => destination.flushSync());
    },
  };
}
