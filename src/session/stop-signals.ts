/**
 * Ctrl-C (or `star-loop stop`, which sends SIGINT) once: finish the current iteration, then stop. Twice, or
 * SIGTERM (`star-loop stop --now`): end at once. For `run` and `fleet`, heard from the command's first step:
 * a signal during recon stops before anything is opened (exit 6), never the process dying of the signal.
 */
export interface StopSignals {
  /** Aborted by SIGTERM or a second Ctrl-C: end at once. */
  readonly now: AbortController;
  /** Aborted by the first Ctrl-C: finish the iteration, then stop. */
  readonly gentle: AbortController;
  /** What the first Ctrl-C says once there is somewhere to say it (the run's events). */
  onFirstInterrupt(warn: () => void): void;
  /** Either kind of stop was asked for. */
  readonly asked: boolean;
  remove(): void;
}

export function listenForStop(): StopSignals {
  const now = new AbortController();
  const gentle = new AbortController();
  let warn: (() => void) | undefined;
  const onInt = () => {
    if (gentle.signal.aborted) now.abort();
    else {
      gentle.abort();
      warn?.();
    }
  };
  const onTerm = () => now.abort();
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    now,
    gentle,
    onFirstInterrupt: (fn) => {
      warn = fn;
    },
    get asked() {
      return now.signal.aborted || gentle.signal.aborted;
    },
    remove: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
