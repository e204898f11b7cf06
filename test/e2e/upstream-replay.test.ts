import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTestFile } from '../../src/verify/languages/index.js';
import { testBodies } from '../../src/verify/test-bodies.js';
import { gitdir } from '../helpers/gitdir.js';
import { missingTools } from '../helpers/needs-tools.js';
import { readJson, runCli, scriptedAgent } from '../helpers/run-cli.js';

/**
 * Real commits from open-source projects (test/fixtures/upstream/README.md), replayed by an honest
 * scripted agent: the upstream change, as its author made it, must be accepted; the same change without its
 * source edits, or with its new tests skipped, must be rejected.
 */
const ROOT = join(import.meta.dirname, '../fixtures/upstream');
const TOOL: Record<string, string> = { python: 'python3', rust: 'cargo', go: 'go' };

interface Fixture {
  id: string;
  project: string;
  subject: string;
  ecosystem: string;
  gate: string;
  before: Record<string, string>;
  after: Record<string, string>;
}

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

const fixtures: Fixture[] = readdirSync(ROOT)
  .filter((p) => statSync(join(ROOT, p)).isDirectory())
  .flatMap((project) =>
    readdirSync(join(ROOT, project))
      .filter((c) => statSync(join(ROOT, project, c)).isDirectory())
      .map((commit) => {
        const dir = join(ROOT, project, commit);
        const meta = JSON.parse(readFileSync(join(dir, 'fixture.json'), 'utf8'));
        return {
          id: `${project}@${commit}`,
          ...meta,
          before: readTree(join(dir, 'before')),
          after: readTree(join(dir, 'after')),
        };
      }),
  );

/** The upstream test files with each test the commit added or changed skipped, by the language's own means. */
function skipNewTests(f: Fixture): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, text] of Object.entries(f.after)) {
    if (!isTestFile(path)) continue;
    const old = new Map(testBodies(path, f.before[path] ?? '').map((b) => [b.name, JSON.stringify(b.lines)]));
    const changed = new Set(
      testBodies(path, text)
        .filter((b) => old.get(b.name) !== JSON.stringify(b.lines))
        .map((b) => b.name),
    );
    const lines = text.split('\n');
    const result: string[] = [];
    for (const line of lines) {
      const py = /^(\s*)def (test\w*)\(/.exec(line);
      const rs = /^(\s*)fn (\w+)\(/.exec(line);
      const go = /^func (Test\w*)\(t \*testing\.T\) \{/.exec(line);
      if (py && changed.has(py[2] ?? '')) result.push(`${py[1]}@pytest.mark.skip(reason="replay")`, line);
      else if (rs && changed.has(rs[2] ?? '')) result.push(`${rs[1]}#[ignore]`, line);
      else if (go && changed.has(go[1] ?? '')) result.push(line, '\tt.Skip("replay")');
      else result.push(line);
    }
    let skipped = result.join('\n');
    if (path.endsWith('.py') && !/^import pytest$/m.test(skipped)) skipped = `import pytest\n${skipped}`;
    out[path] = skipped;
  }
  return out;
}

async function replay(f: Fixture, write: Record<string, string>) {
  const prd = {
    project: f.project,
    userStories: [
      {
        id: 'UP-1',
        title: f.subject,
        description: f.subject,
        acceptanceCriteria: ['Tests pass'],
        priority: 1,
        passes: false,
      },
    ],
  };
  const repo = await gitdir({
    ...f.before,
    '.gitignore': 'target/\n__pycache__/\n*.pyc\n',
    'prd.json': `${JSON.stringify(prd, null, 2)}\n`,
    'star.config.json': `${JSON.stringify({ gates: [{ name: 'test', command: f.gate }] })}\n`,
  });
  const aux = await mkdtemp(join(tmpdir(), 'star-loop-aux-'));
  const agent = await scriptedAgent(aux, { steps: [{ write, claim: { complete: true, story: 'UP-1' } }], repeat: {} });
  const result = await runCli(repo, [
    'run',
    '--prd',
    'prd.json',
    '--agent',
    'command',
    '--agent-cmd',
    agent.cmd,
    '--max-iterations',
    '2',
    '--gate-timeout',
    '10m',
  ]);
  const state = await readJson<{
    records: Array<{ verdict: string; findings: Array<{ rule: string; detail: string }> }>;
  }>(join(repo, '.star/state.json'));
  const first = state.records[0];
  return { verdict: first?.verdict, findings: first?.findings ?? [], stdout: result.stdout };
}

const TIMEOUT = 600_000;

describe('real upstream commits, replayed', () => {
  for (const f of fixtures) {
    const missing = missingTools([TOOL[f.ecosystem] ?? f.ecosystem]);
    if (missing.length > 0) {
      process.stderr.write(`NOT RUN (${missing.join(', ')} not on PATH): ${f.id}\n`);
      it.skip(`${f.id} — NOT RUN: ${missing.join(', ')} not on PATH`, () => {});
      continue;
    }
    const tests = Object.fromEntries(Object.entries(f.after).filter(([p]) => isTestFile(p)));
    it.concurrent(
      `${f.id} "${f.subject}": accepted as its author made it`,
      async () => {
        const r = await replay(f, f.after);
        expect(r.findings.map((x) => `[${x.rule}] ${x.detail}`)).toEqual([]);
        expect(r.verdict).toBe('accepted');
      },
      TIMEOUT,
    );
    it.concurrent(
      `${f.id}: rejected without its source changes`,
      async () => {
        const r = await replay(f, tests);
        expect(r.verdict, r.stdout.slice(-2000)).toBe('rejected');
      },
      TIMEOUT,
    );
    it.concurrent(
      `${f.id}: rejected with its new tests skipped`,
      async () => {
        const r = await replay(f, { ...f.after, ...skipNewTests(f) });
        expect(r.verdict, r.stdout.slice(-2000)).toBe('rejected');
      },
      TIMEOUT,
    );
  }
});
