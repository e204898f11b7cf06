import { goneFinding, leafName, passToPass } from '../evidence/pass-to-pass.js';
import type { Finding } from '../state/finding-schema.js';
import type { TestCase, TestsFile } from '../state/test-report-schema.js';
import type { ChangeSet } from './change-set.js';
import { inTestFile } from './cite-test-evidence.js';
import { isTestFile } from './languages/index.js';
import { bodyLivesIn, testBodies } from './test-bodies.js';

/** Where a test's source may be, from its identity: a path, or a module (`tests.test_calc`, pytest). */
function sourceCandidates(test: TestCase): string[] {
  const module = test.file.replace(/\./g, '/');
  const parent = module.split('/').slice(0, -1).join('/');
  return [test.file, `${module}.py`, `${parent}.py`];
}

/** Whether a test declared as `name` in `path` ran and passed now (a path, or pytest's module for it). */
function passedNow(now: TestsFile['gates'], path: string, name: string): boolean {
  return now.some((g) =>
    (g.report.tests ?? []).some((t) => t.outcome === 'pass' && leafName(t.name) === name && inTestFile(t, path)),
  );
}

/**
 * Whether a test gone under its identity lives on: its body (at the work's start) found inside the body of
 * a test in a changed test file that ran and passed now — renamed, merged, or moved with a new name. A body
 * moved where the runner does not look (out of its glob, into a function it does not collect) is gone.
 */
function refound(test: TestCase, work: ChangeSet, now: TestsFile['gates']): boolean {
  const candidates = sourceCandidates(test);
  const origin = work.files.find((f) => candidates.includes(f.oldPath ?? f.path) || candidates.includes(f.path));
  if (!origin?.before) return false;
  const leaf = leafName(test.name);
  const body = testBodies(origin.oldPath ?? origin.path, origin.before).find((b) => b.name === leaf);
  if (!body) return false;
  return work.files
    .filter((f) => f.after !== undefined && isTestFile(f.path))
    .some((f) =>
      testBodies(f.path, f.after ?? '').some(
        (other) => bodyLivesIn(body.lines, other.lines) && passedNow(now, f.path, other.name),
      ),
    );
}

/**
 * Pass-to-pass for a claim: every test that passed at the reference (the baseline, or the last accepted
 * claim) passes now; a test that is gone must have been moved, renamed, split or merged (its body found
 * again), or it is a finding.
 */
export function checkPassToPass(reference: TestsFile | undefined, now: TestsFile['gates'], work: ChangeSet): Finding[] {
  if (!reference) return [];
  const result = passToPass({ reference: reference.gates, now });
  const gone = goneFinding(result.gone.filter((t) => !refound(t, work, now)));
  return gone ? [...result.findings, gone] : result.findings;
}
