import { ExitCode } from '../errors.js';
import { printLine } from '../report/terminal-output.js';
import { checkSandbox } from '../sandbox/check-sandbox.js';
import { probeSandbox } from '../sandbox/probe-sandbox.js';

/**
 * `star-loop doctor`: whether agents and gates can be contained on this machine, boundary by boundary, and
 * why not. Exit 0 when every boundary holds, 4 when one does not (`--sandbox auto` would warn, `required`
 * refuse).
 */
export async function doctorCommand(flags: { json?: boolean }): Promise<ExitCode> {
  const check = await checkSandbox(await probeSandbox());
  const ok = check.boundaries.every((b) => b.enforced);
  if (flags.json) {
    printLine(JSON.stringify({ ok, ...check }));
    return ok ? ExitCode.Complete : ExitCode.NeedsHuman;
  }
  const { support } = check;
  const socat = support.socat ? `socat at ${support.socat}` : 'socat not found';
  const tools = support.bwrap
    ? `${support.version ?? 'bubblewrap'} at ${support.bwrap}; ${socat}`
    : 'bubblewrap not found';
  const lines = [`Sandbox: ${support.works ? 'works' : 'NOT AVAILABLE'} — ${tools}`];
  if (support.reason) lines.push(`  why: ${support.reason}`);
  for (const b of check.boundaries)
    lines.push(`  ${b.name.padEnd(12)} ${(b.enforced ? 'enforced' : 'NOT ENFORCED').padEnd(13)} ${b.detail}`);
  if (check.startMs !== undefined)
    lines.push(`  cost         ${check.startMs} ms to start and end one sandboxed process`);
  lines.push(
    ok
      ? '--sandbox auto (the default) will use it; --sandbox required will run.'
      : '--sandbox auto will run uncontained, with a warning; --sandbox required will refuse (exit 4).',
  );
  printLine(lines.join('\n'));
  return ok ? ExitCode.Complete : ExitCode.NeedsHuman;
}
