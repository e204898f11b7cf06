/**
 * Ctrl-C (or `star-loop stop`, which sends SIGINT) once: finish the current iteration, then stop. Twice, or
 * SIGTERM (`star-loop stop --now`): end at once. `warn` says so after the first. For `run` and `fleet`;
 * returns the function that removes the handlers.
 */
export function onStopSignals(controller: AbortController, gentle: AbortController, warn: () => void): () => void {
  const onInt = () => {
    if (gentle.signal.aborted) controller.abort();
    else {
      gentle.abort();
      warn();
    }
  };
  const onTerm = () => controller.abort();
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}
