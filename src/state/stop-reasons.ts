import { ExitCode } from '../errors.js';

/** Why a run or a fleet stopped: report.json's stopReason, and what decides the exit code. */
export const stopReasons = [
  'complete',
  'max-iterations',
  'max-time',
  'stalled',
  'parked',
  'repeated-error',
  'oscillating',
  'repeated-claim',
  'asked-question',
  'permission-denied',
  'plan-mode',
  'no-tool-calls',
  'idle-exit',
  'rate-limited',
  'max-cost',
  'max-tokens',
  'cost-unknown',
  'regressed',
  'refused',
  'invalid-input',
  'safety',
  'stopped',
  'error',
] as const;
export type StopReason = (typeof stopReasons)[number];

/** The exit code of a stop reason: the contract scripts, cron and CI act on (README, exit codes). */
export function exitCodeFor(reason: StopReason): ExitCode {
  switch (reason) {
    case 'complete':
      return ExitCode.Complete;
    case 'max-iterations':
    case 'max-time':
    case 'max-cost':
    case 'max-tokens':
    case 'rate-limited':
      return ExitCode.Budget;
    case 'stalled':
    case 'parked':
    case 'repeated-error':
    case 'oscillating':
    case 'repeated-claim':
    case 'asked-question':
    case 'permission-denied':
    case 'plan-mode':
    case 'no-tool-calls':
    case 'idle-exit':
    case 'cost-unknown':
    case 'regressed':
    case 'refused':
      return ExitCode.NeedsHuman;
    case 'safety':
      return ExitCode.Safety;
    case 'stopped':
      return ExitCode.Stopped;
    case 'invalid-input':
      return ExitCode.Usage;
    case 'error':
      return ExitCode.Internal;
  }
}
