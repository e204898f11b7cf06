/**
 * Exit codes are part of star-loop's contract: scripts, cron wrappers and CI steps rely on them.
 * Keep this table, `--help` and the README in step.
 */
export const ExitCode = {
  /** All work complete and verified. */
  Complete: 0,
  /** Internal error: a bug in star-loop or an environment failure it could not name. */
  Internal: 1,
  /** Bad usage or invalid input: flags, prd.json, star.config.json. */
  Usage: 2,
  /** A budget ran out with work remaining (iterations, time, cost, tokens), or a rate limit outlasted --max-wait. */
  Budget: 3,
  /** Paused or refused: needs a human (stall, circuit breaker, refused start). */
  NeedsHuman: 4,
  /** Aborted by a safety violation. */
  Safety: 5,
  /** Stopped by the user. */
  Stopped: 6,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const exitCodeHelp: ReadonlyArray<readonly [ExitCode, string]> = [
  [ExitCode.Complete, 'all work complete and verified'],
  [ExitCode.Internal, 'internal error'],
  [ExitCode.Usage, 'bad usage or invalid input (flags, prd.json, config)'],
  [ExitCode.Budget, 'a budget ran out with work remaining (iterations, time, cost, tokens, rate-limit wait)'],
  [ExitCode.NeedsHuman, 'paused or refused: needs a human (stall, breaker, refused start)'],
  [ExitCode.Safety, 'aborted by a safety violation'],
  [ExitCode.Stopped, 'stopped by the user'],
];

/** An error star-loop expected and can explain in one line, with what to do next. */
export class StarError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'StarError';
  }
}

/** Bad flags, a malformed prd.json or star.config.json: exit 2. */
export class InputError extends StarError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.Usage, hint);
    this.name = 'InputError';
  }
}

/** star-loop will not start here (e.g. not a git repository): exit 4. */
export class RefusedError extends StarError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.NeedsHuman, hint);
    this.name = 'RefusedError';
  }
}
