import { CommanderError } from 'commander';
import { buildProgram } from './commands/command-table.js';
import { ExitCode, StarError } from './errors.js';
import { diskProblem } from './util/disk-error.js';

function printError(error: unknown, debug: boolean): ExitCode {
  if (error instanceof StarError) {
    process.stderr.write(`star-loop: ${error.message}\n`);
    if (error.hint) process.stderr.write(`  fix: ${error.hint}\n`);
    process.stderr.write(`  (exit ${error.exitCode})\n`);
    return error.exitCode;
  }
  // A machine that cannot take a write (disk full, read-only, permissions) is not a bug: say what and the fix.
  const disk = diskProblem(error);
  if (disk) {
    process.stderr.write(`star-loop: ${disk.what}\n  fix: ${disk.fix}\n  (exit ${ExitCode.Internal})\n`);
    return ExitCode.Internal;
  }
  process.stderr.write(`star-loop: internal error: ${(error as Error)?.message ?? String(error)}\n`);
  process.stderr.write(
    debug
      ? `${(error as Error)?.stack ?? ''}\n  (exit ${ExitCode.Internal}; this is a bug: please report it with the ` +
          `lines above)\n`
      : `  fix: this is a bug in star-loop; run again with --debug for the stack trace and report it\n  (exit ` +
          `${ExitCode.Internal})\n`,
  );
  return ExitCode.Internal;
}

/** The CLI entry: the only place that decides the process's exit code. */
export async function main(argv: string[]): Promise<ExitCode> {
  let code: ExitCode = ExitCode.Complete;
  // A reader that went away (`star-loop schema prd | head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.Complete : ExitCode.Usage;
    }
    return printError(error, argv.includes('--debug'));
  }
  return code;
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = printError(error, process.argv.includes('--debug'));
  },
);
