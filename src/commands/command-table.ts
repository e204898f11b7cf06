import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { type ExitCode, exitCodeHelp } from '../errors.js';
import { packageFile } from '../util/package-root.js';

const { version } = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
  version: string;
};

const EXIT_CODES = `\nExit codes:\n${exitCodeHelp.map(([code, text]) => `  ${code}  ${text}`).join('\n')}\n`;

/** The options of the loop itself, shared by `run` and `fleet` (whose workers get them). */
function withLoopOptions(command: Command): Command {
  return command
    .option(
      '--agent <name>',
      'claude (default) | codex | gemini | opencode | amp | cursor-agent | grok | aider | command | demo',
    )
    .option('--agent-cmd <cmd>', 'custom agent: run with `sh -c CMD` in the repo root, prompt on stdin')
    .option('--model <id>', 'model id passed to the agent')
    .option('--max-iterations <n>', 'iterations before stopping with exit 3 (default 20)')
    .option('--max-time <duration>', 'wall clock for the whole run, e.g. 90s, 45m, 8h')
    .option(
      '--max-cost <usd>',
      "stop before an iteration that would not fit in this many USD (from the agents' reported cost)",
    )
    .option('--max-tokens <n>', 'stop before an iteration that would not fit in this many tokens (input + output)')
    .option('--max-turns <n>', "each agent run's turn limit, for agents that accept one (Claude Code)")
    .option('--max-wait <duration>', 'how long one iteration waits out rate limits before the run pauses (default 1h)')
    .option('--fallback-agent <name>', 'the agent to run while the primary is rate-limited (and back after)')
    .option(
      '--pass-env <name>',
      'a credential-like environment variable agents may see (repeatable); others are kept from them',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--stall-after <n>', 'consecutive iterations without movement that count as a stall (default 3)')
    .option(
      '--park-after <n>',
      'rejected claims on one story before it is parked for a human and the loop moves on (default 3)',
    )
    .option('--same-error-limit <n>', 'iterations in a row ending with the same error before the run stops (default 5)')
    .addOption(
      new Option('--on-stall <action>', 'what a stall does (default pause)').choices(['pause', 'stop', 'continue']),
    )
    .option('--iteration-timeout <duration>', 'end an agent process (and its children) after this long (default 30m)')
    .option('--idle-timeout <duration>', 'end an agent that prints nothing for this long (default: none)')
    .option('--gate-timeout <duration>', 'end a gate command after this long (default 15m)')
    .addOption(
      new Option(
        '--verify <mode>',
        'claims (default): verify completion claims; every: check every iteration; off: trust the agent',
      ).choices(['claims', 'every', 'off']),
    )
    .option('--verifier-agent <name>', "the adversarial verifier agent (default: the implementer's)")
    .option('--require-tests', 'reject a claim that changes source without adding or changing a test')
    .option('--require-tests-gate', 'refuse to start (exit 4) when no gate runs tests, or every test gate is red')
    .option('--mutants <n>', 'mutants of the claimed lines tried per claim; 0 turns them off (default 6)')
    .option('--verifier-model <id>', "the verifier's model (default: the implementer's)")
    .addOption(
      new Option(
        '--sandbox <mode>',
        'auto (default): agents and gates in a sandbox where the machine has one; required: refuse without; off',
      ).choices(['auto', 'required', 'off']),
    )
    .option(
      '--sandbox-allow-host <host>',
      "a host[:port] or URL agents may reach besides their model's API (repeatable)",
      (v: string, all: string[] = []) => [...all, v],
    )
    .option(
      '--sandbox-allow-write <path>',
      'a folder agents may write besides the work tree (repeatable)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--allow-push', 'do not block git push for the agent')
    .option('--protect <glob>', 'a path the agent must not change (repeatable)', (v: string, all: string[] = []) => [
      ...all,
      v,
    ])
    .option(
      '--on-finish <cmd>',
      'run CMD (sh -c) when the loop stops; STAR_STOP_REASON, STAR_EXIT_CODE, STAR_REPORT in its env',
    )
    .option('--json', 'one JSON event per line on stdout instead of human output (schema: `star-loop schema events`)')
    .option('--verbose', 'stream every line the agent prints (otherwise its activity is summarised)')
    .option('--debug', 'print stack traces for internal errors');
}

/** `run` and `fleet`: the loop, alone or several at once (both take every loop option). */
function addLoopCommands(program: Command, setExit: (code: ExitCode) => void): void {
  withLoopOptions(
    program
      .command('run')
      .description('recon → iterate ⇄ verify → report, on a task (prompt mode) or a prd.json (PRD mode)')
      .argument('[task...]', 'the task as text (prompt mode)')
      .option('--prd <file>', 'PRD mode: work through the user stories in prd.json')
      .option('--prompt <file>', 'prompt mode: read the task from a file such as PROMPT.md')
      .option('--story <id>', 'PRD mode: work on this story only (it must be ready: its dependencies pass)')
      .option('--dry-run', 'recon only: print the plan and exit 0, writing nothing')
      .option(
        '--branch <name>',
        'the branch to run on (PRD mode: branchName); created from HEAD (or --base) if missing',
      )
      .option('--base <ref>', 'where a new branch starts (default: the current HEAD)')
      .option('--worktree', 'run in a new git worktree on its own branch; your checkout is never touched')
      .option('--allow-dirty', 'start even with uncommitted changes (they become part of the first iteration)')
      .option('--allow-default-branch', 'allow running on the default branch'),
  )
    .addHelpText('after', EXIT_CODES)
    .action(async (task: string[], flags: Record<string, unknown>, command: Command) => {
      const { runCommand } = await import('./run.js');
      setExit(await runCommand(task, flags, command.parent?.args.slice(1) ?? []));
    });

  withLoopOptions(
    program
      .command('fleet')
      .description(
        'several loops at once: one story per worker, each in its own worktree, merged one at a time with the ' +
          'gates re-run',
      )
      .option('--prd <file>', 'the PRD (default prd.json); its branchName is the integration branch')
      .option('--workers <n>', 'how many stories run at once (default 2)')
      .option('--worktree-setup <cmd>', 'run CMD (sh -c) in each new worktree before its worker starts, e.g. "npm ci"')
      .option(
        '--max-returns <n>',
        'merge conflicts or post-merge gate failures (or worker deaths) before a story is parked (default 2)',
      )
      .option('--branch <name>', "the integration branch (default: prd.json's branchName)")
      .option('--allow-default-branch', 'allow the default branch as the integration branch')
      .option('--dry-run', 'print the plan (queue, workers, gates) and exit 0, writing nothing'),
  )
    .addHelpText('after', EXIT_CODES)
    .action(async (flags: Record<string, unknown>, command: Command) => {
      const { fleetCommand } = await import('./fleet.js');
      setExit(await fleetCommand(flags, command.parent?.args.slice(1) ?? []));
    });
}

/** `resume` and `stop`/`pause`: control of a run or fleet that is live (or was paused). */
function addControlCommands(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command('resume')
    .description(
      'continue the paused or interrupted run (or fleet) in this repository, with the arguments it was started with',
    )
    .action(async () => {
      const { resumeArgs } = await import('./resume.js');
      const args = await resumeArgs(process.cwd());
      await buildProgram(setExit).parseAsync(['node', 'star-loop', ...args]);
    });

  for (const [name, what] of [
    ['stop', 'stop the run in this repository after its current iteration (exit 6; `resume` continues it)'],
    ['pause', 'the same as stop: finish the current iteration, then pause until `star-loop resume`'],
  ] as const) {
    program
      .command(name)
      .description(what)
      .option('--now', 'end the agent at once instead of after its iteration')
      .action(async (flags: { now?: boolean }) => {
        const { stopCommand } = await import('./stop.js');
        setExit(await stopCommand(flags));
      });
  }
}

/** `init`, `validate`, `schema`, `import`, `prd ready`: the files star-loop reads, and questions about them. */
function addFileCommands(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command('init')
    .description('scaffold prd.json, AGENTS.md and star.config.json in this repository (never overwrites a file)')
    .action(async () => {
      const { initCommand } = await import('./init.js');
      setExit(await initCommand());
    });

  program
    .command('validate')
    .description('check a prd.json and print every problem with its path and a fix')
    .argument('[file]', 'the PRD', 'prd.json')
    .action(async (file: string) => {
      const { validateCommand } = await import('./validate.js');
      setExit(await validateCommand(file));
    });

  program
    .command('schema')
    .description(
      'print the JSON Schema of prd | config | claim | verdict | events | fleet-events, for editors and scripts',
    )
    .argument('<name>', 'prd, config, claim, verdict, events or fleet-events')
    .action(async (name: string) => {
      const { schemaCommand } = await import('./schema.js');
      setExit(await schemaCommand(name));
    });

  program
    .command('import')
    .description(
      'convert another PRD shape (stories with status and qualityGates, features, tasks) or a markdown checklist ' +
        'into prd.json',
    )
    .argument('<file>', 'the PRD or checklist to convert')
    .option('-o, --out <file>', 'where to write (default prd.json; never overwritten)')
    .action(async (file: string, flags: { out?: string }) => {
      const { importCommand } = await import('./import.js');
      setExit(await importCommand(file, flags));
    });

  const prdCommand = program.command('prd').description('questions about a prd.json');
  prdCommand
    .command('ready')
    .description('the stories that can start now (dependencies passed), in order — e.g. for a CI matrix')
    .option('--prd <file>', 'the PRD (default prd.json)')
    .option('--json', '{"ready":[{id,title,priority}],"blocked":[{id,waitingFor}],"passed":[ids]}')
    .action(async (flags: { prd?: string; json?: boolean }) => {
      const { prdReadyCommand } = await import('./prd-ready.js');
      setExit(await prdReadyCommand(flags));
    });
}

/**
 * `agents`, `doctor`, `status`, `schedule`: what is installed, whether it can be contained, what a run is
 * doing, and how to run one overnight.
 */
function addInfoCommands(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command('agents')
    .description('every agent adapter: whether its CLI is on PATH, its version, and what star-loop can read from it')
    .option('--json', 'one JSON object')
    .action(async (flags: { json?: boolean }) => {
      const { agentsCommand } = await import('./agents.js');
      setExit(await agentsCommand(flags));
    });

  program
    .command('doctor')
    .description('whether agents and gates can be sandboxed here, boundary by boundary, and why not (exit 4 if not)')
    .option('--json', 'one JSON object')
    .action(async (flags: { json?: boolean }) => {
      const { doctorCommand } = await import('./doctor.js');
      setExit(await doctorCommand(flags));
    });

  program
    .command('status')
    .description('what the run in this repository is doing (or did): state, iteration, story, budgets, last verdict')
    .option('--json', 'one JSON object')
    .action(async (flags: { json?: boolean }) => {
      const { statusCommand } = await import('./status.js');
      setExit(await statusCommand(flags));
    });
  program
    .command('schedule')
    .description('print a crontab line (or a launchd plist) that runs `star-loop run ARGS` on a schedule')
    .argument('[run-args...]', 'the arguments for `star-loop run`, after --')
    .option('--cron <expression>', 'when, as five cron fields, e.g. "0 1 * * *"')
    .option('--launchd', 'print a launchd plist instead of a crontab line')
    .option('--fleet', 'schedule `star-loop fleet ARGS` instead of `run`')
    .action(async (runArgs: string[], flags: { cron?: string; launchd?: boolean; fleet?: boolean }) => {
      const { scheduleCommand } = await import('./schedule.js');
      setExit(await scheduleCommand(runArgs, flags));
    });
}

/**
 * The command table: every verb, its options and help, each loaded lazily when it runs (`--version` and
 * `status` never load the loop). `setExit` receives the verb's exit code.
 */
export function buildProgram(setExit: (code: ExitCode) => void): Command {
  const program = new Command('star-loop')
    .description('Runs a coding agent in a loop, fresh each iteration, and verifies every claim itself.')
    .version(version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_CODES)
    .exitOverride();

  addLoopCommands(program, setExit);
  addControlCommands(program, setExit);
  addFileCommands(program, setExit);
  addInfoCommands(program, setExit);
  return program;
}
