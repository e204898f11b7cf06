/**
 * Aborted when either is (AbortSignal.any needs Node 20.3; star-loop supports every Node 20). `dispose`
 * removes its listeners from the run-long signals, so a long run does not pile them up.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const both = new AbortController();
  const listeners = [a, b].map((signal) => {
    const onAbort = () => both.abort(signal.reason);
    if (signal.aborted) both.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
  return {
    signal: both.signal,
    dispose: () => {
      for (const remove of listeners) remove();
    },
  };
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
