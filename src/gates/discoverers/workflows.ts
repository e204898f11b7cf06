import type { YAMLMap } from 'yaml';
import { at, type Candidate, type GateDiscoverer, kindOf } from '../gate.js';
import { looksLikeGate } from '../looks-like-gate.js';
import { scriptLines } from '../script-lines.js';

const DIR = '.github/workflows';

/** One command of a workflow step's `run:`, with its line, or the reason it cannot be a gate. */
export interface StepCommand {
  command: string;
  line: number;
  /** Why it is not a gate (an expression star-loop cannot resolve, a shell that is not sh). */
  drop?: string;
}

type Values = Record<string, unknown>;

const plain = (value: unknown): Values =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Values) : {};

/** A matrix's first value for each key (`include`'s first entry where a key has no list of its own). */
function firstOfMatrix(strategy: unknown): Values {
  const matrix = plain(plain(strategy).matrix);
  const first: Values = { ...plain(Array.isArray(matrix.include) ? matrix.include[0] : undefined) };
  for (const [key, value] of Object.entries(matrix)) {
    if (key === 'include' || key === 'exclude') continue;
    if (Array.isArray(value) && value.length > 0) first[key] = value[0];
  }
  return first;
}

const CHECKS = new Set(['test', 'lint', 'typecheck']);

/** A step that publishes: its action, or its commands. */
const PUBLISHING_ACTION = /publish|release|deploy/i;
const PUBLISHING_COMMAND =
  /\b(twine upload|(npm|pnpm|yarn|cargo|poetry|flit|hatch|uv) publish|gh release|docker push|changeset publish)\b/;

/**
 * Why a job's commands are not gates: the workflow runs only for releases or tags, or the job publishes
 * (a step uses a publishing action, or runs `twine upload`, `npm publish`, …). Its build and check steps are
 * there to ship, not to check a change.
 */
function releaseReason(workflow: Values, jobName: string, job: Values): string | undefined {
  const on = workflow.on ?? workflow.true;
  const events = typeof on === 'string' ? [on] : Array.isArray(on) ? on.map(String) : Object.keys(plain(on));
  const push = plain(plain(on).push);
  const tagsOnly = events.every((e) => e === 'release' || (e === 'push' && push.tags && !push.branches));
  if (events.length > 0 && tagsOnly) return 'its workflow runs only for releases and tags';
  const steps = Array.isArray(job.steps) ? job.steps.map(plain) : [];
  const publishing = steps.some(
    (s) =>
      (typeof s.uses === 'string' && PUBLISHING_ACTION.test(s.uses.split('@')[0] ?? '')) ||
      (typeof s.run === 'string' && PUBLISHING_COMMAND.test(s.run)),
  );
  return publishing ? `its job "${jobName}" publishes a release` : undefined;
}

/**
 * `${{ matrix.x }}` and `${{ env.X }}` resolved from the job's matrix (its first value) and the workflow's,
 * job's and step's `env`; any other expression (secrets, inputs, step outputs) is left as it is.
 */
function resolve(script: string, matrix: Values, env: Values): string {
  return script.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (whole, expr: string) => {
    const m = /^(matrix|env)\.([\w-]+)$/.exec(expr);
    const value = m ? (m[1] === 'matrix' ? matrix : env)[m[2] ?? ''] : undefined;
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : whole;
  });
}

/**
 * Every command of every job's steps' `run:` (never an action's `with:` inputs), with its line: a multi-line
 * `run: |` gives one command per line (continuations joined, `cd` carried), expressions resolved or the
 * command dropped with the reason. Pure; async only to load the YAML parser (190 KB) the first time a
 * project has a workflow, so start-up never pays for it without one.
 */
export async function runCommands(text: string): Promise<StepCommand[]> {
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = await import('./yaml-parser.js');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return [];
  const root = doc.contents;
  const out: StepCommand[] = [];
  const workflow = doc.toJS() as Values;
  const jobs = root.get('jobs', true);
  if (!isMap(jobs)) return [];
  for (const pair of jobs.items) {
    const job = pair.value;
    if (!isMap(job)) continue;
    const jobName = String(isScalar(pair.key) ? pair.key.value : '');
    const jobJs = plain(plain(workflow.jobs)[jobName]);
    const release = releaseReason(workflow, jobName, jobJs);
    const matrix = firstOfMatrix(jobJs.strategy);
    const jobShell = plain(plain(jobJs.defaults).run).shell ?? plain(plain(workflow.defaults).run).shell;
    const jobDir = plain(plain(jobJs.defaults).run)['working-directory'];
    const steps = job.get('steps', true);
    if (!isSeq(steps)) continue;
    for (const step of steps.items) {
      if (!isMap(step)) continue;
      const run = (step as YAMLMap).get('run', true);
      if (!isScalar(run) || typeof run.value !== 'string') continue;
      const stepJs = plain(step.toJSON());
      const env = { ...plain(workflow.env), ...plain(jobJs.env), ...plain(stepJs.env) };
      const shell = stepJs.shell ?? jobShell;
      const dir = stepJs['working-directory'] ?? jobDir;
      const start = lines.linePos(run.range?.[0] ?? 0).line;
      // A block scalar's first line is the one after its `|` or `>`.
      const block = run.type === 'BLOCK_LITERAL' || run.type === 'BLOCK_FOLDED';
      for (const { command, offset } of scriptLines(resolve(run.value, matrix, env))) {
        const line = start + (block ? 1 : 0) + offset;
        const unresolved = /\$\{\{[^}]*\}\}/.exec(command)?.[0];
        const cd = typeof dir === 'string' && dir !== '.' ? `cd ${dir} && ` : '';
        // A publishing job's own checks (its tests, lint, types) still check; its build and packaging do not.
        if (release && !CHECKS.has(kindOf(command))) out.push({ command, line, drop: release });
        else if (typeof shell === 'string' && !/^(bash|sh)\b/.test(shell))
          out.push({ command, line, drop: `it runs in \`${shell}\`, not sh` });
        else if (unresolved)
          out.push({
            command,
            line,
            drop: `its \`${unresolved}\` has no value star-loop can know outside GitHub Actions`,
          });
        else out.push({ command: `${cd}${command}`, line });
      }
    }
  }
  return out;
}

export const workflowsDiscoverer: GateDiscoverer = {
  name: 'GitHub workflows',
  async discover(files) {
    const gates: Candidate[] = [];
    const names = (await files.list(DIR)).filter((f) => /\.ya?ml$/.test(f)).sort();
    for (const name of names) {
      const file = `${DIR}/${name}`;
      const text = await files.read(file);
      if (!text) continue;
      for (const { command, line, drop } of await runCommands(text)) {
        if (!looksLikeGate(command)) continue;
        gates.push({ name: command, command, kind: kindOf(command), source: at(file, line), drop });
      }
    }
    return gates;
  },
};
