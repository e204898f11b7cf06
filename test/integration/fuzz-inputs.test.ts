import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { StarError } from '../../src/errors.js';
import { checkPrd, loadPrd } from '../../src/prd/load-prd.js';
import { prdFields } from '../../src/safety/fingerprints.js';
import { isStale, readLock } from '../../src/state/lock.js';
import { readClaimFile } from '../../src/state/read-claim-file.js';
import { readState } from '../../src/state/state-store.js';
import { readVerdict } from '../../src/verify/run-verifier.js';
import { fuzzJson } from '../helpers/fuzz-json.js';

/**
 * Every file an agent or a user controls, in hostile variants (test/helpers/fuzz-json.ts, seeded), through
 * the functions that read it: each ends in a value, or in an error star-loop names with an exit code that is
 * not 1 (internal) — never a TypeError, a RangeError (the stack), or anything unnamed (issue 18).
 */
const CASES = 150;
const PRD = {
  project: 'calc',
  branchName: 'work',
  userStories: [
    { id: 'US-001', title: 'Add', description: 'd', acceptanceCriteria: ['a'], priority: 1, passes: false, notes: '' },
    { id: 'US-002', title: 'Sub', passes: true, dependsOn: ['US-001'], kind: 'fix' },
  ],
};
const CONFIG = { gates: [{ name: 'test', command: 'npm test' }], maxIterations: 5, sandbox: { allowHosts: ['a:1'] } };
const CLAIM = { complete: true, story: 'US-001', summary: 's', notes: 'n' };
const VERDICT = { verdict: 'reject', findings: [{ rule: 'r', file: 'a.js', line: 3, detail: 'd' }] };
const STATE = {
  schemaVersion: 1,
  runId: 'r',
  status: 'running',
  records: [{ n: 1 }],
  baseline: { commit: 'c', gates: [] },
};
const LOCK = { pid: 1, startedAt: '2026-11-30T00:00:00Z', host: 'h' };

/** Whether an outcome is one star-loop can stand behind: a value, or a named error that is not exit 1. */
async function named(run: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof StarError && error.exitCode !== 1) return `exit ${error.exitCode}`;
    return `UNNAMED ${(error as Error)?.constructor?.name}: ${(error as Error)?.message?.slice(0, 200)}`;
  }
}

describe('fuzzed input files never end in an internal error', () => {
  it('prd.json: checked, loaded and fingerprinted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'star-loop-fuzz-'));
    const bad: string[] = [];
    for (const [i, text] of fuzzJson(PRD, 18_001, CASES).entries()) {
      const file = join(dir, `prd-${i}.json`);
      await writeFile(file, text, 'latin1');
      const outcomes = [
        await named(() => checkPrd(text)),
        await named(() => loadPrd(file)),
        await named(() => prdFields(text)),
      ];
      for (const o of outcomes) if (o.startsWith('UNNAMED')) bad.push(`case ${i}: ${o}`);
    }
    expect(bad).toEqual([]);
  });

  it('star.config.json', async () => {
    const bad: string[] = [];
    for (const [i, text] of fuzzJson(CONFIG, 18_002, CASES).entries()) {
      const root = await mkdtemp(join(tmpdir(), 'star-loop-fuzz-'));
      await writeFile(join(root, 'star.config.json'), text, 'latin1');
      const o = await named(() => loadConfig(root));
      if (o.startsWith('UNNAMED')) bad.push(`case ${i}: ${o}`);
    }
    expect(bad).toEqual([]);
  });

  it('the claim file, the verdict file, state.json and the lock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'star-loop-fuzz-'));
    const bad: string[] = [];
    const check = async (what: string, i: number, run: () => Promise<unknown> | unknown) => {
      const o = await named(run);
      if (o.startsWith('UNNAMED')) bad.push(`${what} case ${i}: ${o}`);
    };
    for (const [i, text] of fuzzJson(CLAIM, 18_003, CASES).entries()) {
      await writeFile(join(dir, 'claim.json'), text, 'latin1');
      await check('claim', i, async () =>
        expect((await readClaimFile(join(dir, 'claim.json'))).kind).toMatch(/valid|invalid/),
      );
    }
    for (const [i, text] of fuzzJson(VERDICT, 18_004, CASES).entries()) {
      await check('verdict', i, () => readVerdict(text, 'command', 1));
    }
    for (const [i, text] of fuzzJson(STATE, 18_005, CASES).entries()) {
      await writeFile(join(dir, 'state.json'), text, 'latin1');
      await check('state', i, () => readState(join(dir, 'state.json')));
    }
    for (const [i, text] of fuzzJson(LOCK, 18_006, CASES).entries()) {
      await writeFile(join(dir, 'lock'), text, 'latin1');
      await check('lock', i, async () => {
        const lock = await readLock(join(dir, 'lock'));
        if (lock) isStale(lock);
      });
    }
    expect(bad).toEqual([]);
  });
});
