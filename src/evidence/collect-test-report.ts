import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { type TestCase, type TestReport, testCaseSchema, totalsOf } from '../state/test-report-schema.js';
import { EVIDENCE_FILES } from './evidence-env.js';
import { parseCargoTest } from './parse-cargo-test.js';
import { parseGoTest } from './parse-go-test.js';
import { parseJunit } from './parse-junit.js';
import { parseMocha } from './parse-mocha.js';
import { parseTestCounts, stripAnsi } from './parse-test-counts.js';

/** Where runners write JUnit XML of their own accord (Maven Surefire/Failsafe, Gradle, a configured reporter). */
const JUNIT_DIRS = [
  'target/surefire-reports',
  'target/failsafe-reports',
  'build/test-results',
  'reports',
  'test-results',
];

/** A report file, up to 64 MiB (a gate's processes could write anything there). */
async function readIfThere(file: string): Promise<string | undefined> {
  const size = (await stat(file).catch(() => undefined))?.size;
  if (size === undefined || size > 64 * 1024 * 1024) return undefined;
  return readFile(file, 'utf8').catch(() => undefined);
}

/** JUnit XML files under the tree's usual report folders written since `since` (ms). */
async function freshJunitFiles(tree: string, since: number): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory() && depth < 3 && e.name !== 'node_modules') await walk(path, depth + 1);
      else if (e.isFile() && e.name.endsWith('.xml') && (await stat(path)).mtimeMs >= since) found.push(path);
    }
  };
  for (const d of JUNIT_DIRS) await walk(join(tree, d), 0);
  return found.sort();
}

function nodeEvents(text: string, seenAt: string): TestCase[] {
  const cases: TestCase[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = testCaseSchema.parse(JSON.parse(line));
      const file = isAbsolute(parsed.file) ? relative(seenAt, parsed.file) : parsed.file;
      cases.push({ ...parsed, file });
    } catch {
      // a line cut short by a killed runner: the others still count
    }
  }
  return cases;
}

export interface CollectInput {
  /** The gate's evidence folder (src/evidence/evidence-env.ts). */
  dir: string;
  /** Everything the gate printed. */
  output: string;
  /** The tree on the host, and where the gate's processes saw it (the work tree's path in the sandbox). */
  tree: string;
  seenAt: string;
  startedAt: number;
}

/**
 * What one gate run says about its tests, from every channel that spoke: star-loop's node reporter,
 * pytest's JUnit XML, go test -v and cargo test output, JUnit files the runner wrote itself; else its
 * runner's printed totals; else only its exit code.
 */
export async function collectTestReport(input: CollectInput): Promise<TestReport> {
  const runners: string[] = [];
  const tests: TestCase[] = [];
  const add = (runner: string, cases: TestCase[]) => {
    if (cases.length === 0) return;
    runners.push(runner);
    tests.push(...cases);
  };
  const nodeFiles = (await readdir(input.dir).catch(() => [])).filter((f) => f.startsWith(`${EVIDENCE_FILES.node}.`));
  for (const file of nodeFiles.sort()) {
    add('node --test', nodeEvents((await readIfThere(join(input.dir, file))) ?? '', input.seenAt));
  }
  add('pytest', parseJunit((await readIfThere(join(input.dir, EVIDENCE_FILES.pytest))) ?? ''));
  const output = stripAnsi(input.output);
  add('go test', parseGoTest(output));
  add('cargo test', parseCargoTest(output));
  add('mocha', parseMocha(output));
  for (const file of await freshJunitFiles(input.tree, input.startedAt)) {
    add('junit', parseJunit((await readIfThere(file)) ?? ''));
  }
  if (tests.length > 0) {
    return { evidence: 'per-test', runner: [...new Set(runners)].join(', '), totals: totalsOf(tests), tests };
  }
  const counts = parseTestCounts(output);
  if (counts) return { evidence: 'counts', runner: counts.runner, totals: counts.totals };
  return { evidence: 'exit-code' };
}
