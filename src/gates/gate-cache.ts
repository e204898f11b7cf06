import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type GateResult, gateResultSchema } from '../state/state-schema.js';
import { type TestsFile, testReportSchema } from '../state/test-report-schema.js';
import type { Gate } from './gate.js';

/** The environment variable that gives a fleet's workers the fleet's scope. */
export const GATE_SCOPE_ENV = 'STAR_LOOP_GATE_SCOPE';

/** One gate run's results, as stored: what a later run on the same tree reuses. */
export interface CachedGates {
  /** The commit the tree was first checked at. */
  commit: string;
  results: GateResult[];
  tests: TestsFile['gates'];
}

/**
 * Gate results by what decides them: the tree, the gates' commands, the run they ran in (its environment and
 * tools), and whether they ran in the sandbox. A claim whose tree was already checked — the same tree as an
 * earlier claim, the final re-check of the last accepted claim, a fleet merge that changed nothing the
 * story's run did not check — is not checked again. Kept in the git directory (`star-loop/gate-cache`),
 * which a sandboxed agent cannot write, and shared by a fleet's worktrees. Only complete runs whose every
 * gate passed or failed are kept: a timeout or a gate that could not start is tried again.
 */
export class GateCache {
  /**
   * `scope`: the run (or the fleet, for its workers and merges) the results hold for. Within one, the gates'
   * environment and tools are the same; another run starts afresh, so a fixed machine is seen.
   */
  constructor(
    private readonly dir: string,
    private readonly scope: string,
  ) {}

  key(tree: string, gates: readonly Gate[], sandboxed: boolean): string {
    const what = { scope: this.scope, tree, gates: gates.map((g) => [g.name, g.command]), sandboxed };
    return createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 40);
  }

  async get(key: string): Promise<CachedGates | undefined> {
    try {
      const raw = JSON.parse(await readFile(join(this.dir, `${key}.json`), 'utf8')) as CachedGates;
      return {
        commit: String(raw.commit),
        results: raw.results.map((r) => gateResultSchema.parse(r)),
        tests: raw.tests.map((t) => ({ name: t.name, command: t.command, report: testReportSchema.parse(t.report) })),
      };
    } catch {
      return undefined;
    }
  }

  async put(key: string, value: CachedGates): Promise<void> {
    if (value.results.some((r) => r.status !== 'pass' && r.status !== 'fail')) return;
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, `${key}.json`);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(value)}\n`);
    await rename(temp, file);
  }
}
