import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/build-report.js';
import { githubAnnotations } from '../../src/report/github.js';
import { chooseOutputMode } from '../../src/report/output-mode.js';
import { foldStatus, initialStatus, renderStatusLine } from '../../src/report/status-line.js';

describe('output mode', () => {
  it.each([
    [
      { json: true, isTTY: true, env: {} },
      { kind: 'json', color: false },
    ],
    [
      { json: false, isTTY: true, env: {} },
      { kind: 'live', color: true },
    ],
    [
      { json: false, isTTY: true, env: { NO_COLOR: '1' } },
      { kind: 'live', color: false },
    ],
    [
      { json: false, isTTY: true, env: { CI: 'true' } },
      { kind: 'plain', color: false },
    ],
    [
      { json: false, isTTY: true, env: { TERM: 'dumb' } },
      { kind: 'plain', color: false },
    ],
    [
      { json: false, isTTY: false, env: {} },
      { kind: 'plain', color: false },
    ],
    [
      { json: false, isTTY: false, env: { FORCE_COLOR: '1' } },
      { kind: 'plain', color: true },
    ],
    [
      { json: false, isTTY: true, env: { FORCE_COLOR: '0' } },
      { kind: 'live', color: false },
    ],
    [
      { json: false, isTTY: true, env: { CI: '0' } },
      { kind: 'live', color: true },
    ],
  ])('%j → %j', (input, expected) => {
    expect(chooseOutputMode(input)).toEqual(expected);
  });
});

describe('the live status line', () => {
  it('folds iteration, story, phase, cost, last verdict and activity, and fits the width', () => {
    const t = '2026-11-30T01:00:00.000Z';
    let s = initialStatus();
    s = foldStatus(s, { type: 'run.started', runId: 'r', continued: false, plan: {} as never, time: t });
    s = foldStatus(s, {
      type: 'iteration.started',
      iteration: 7,
      index: 2,
      maxIterations: 20,
      story: 'US-002',
      time: t,
    });
    s = foldStatus(s, {
      type: 'agent.activity',
      iteration: 7,
      role: 'implementer',
      tool: 'Bash',
      text: 'Bash: npm test',
      time: t,
    });
    expect(renderStatusLine(s, Date.parse(t) + 65_000, 200)).toBe(
      '⟳ iteration 2/20 (#7) · US-002 · agent · 1m5s · Bash: npm test',
    );
    s = foldStatus(s, {
      type: 'agent.finished',
      iteration: 7,
      timedOut: false,
      isError: false,
      durationMs: 1,
      agent: 'claude',
      costUsd: 0.5,
      attempts: 1,
      time: t,
    });
    s = foldStatus(s, { type: 'verifier.started', iteration: 7, agent: 'claude', time: t });
    s = foldStatus(s, {
      type: 'claim.verdict',
      iteration: 7,
      verdict: 'accepted',
      stories: ['US-002'],
      findings: [],
      time: t,
    });
    const line = renderStatusLine(s, Date.parse(t), 200);
    expect(line).toContain('verifier');
    expect(line).toContain('$0.5000');
    expect(line).toContain('last: accepted US-002');
    expect(renderStatusLine(s, Date.parse(t), 30).length).toBeLessThanOrEqual(30);
  });
});

describe('GitHub annotations', () => {
  it('findings on their file and line, escaped as workflow commands; a stop that is not complete is a warning', () => {
    const report = {
      stopReason: 'stalled',
      exitCode: 4,
      detail: '3 iterations: no progress',
      safety: [],
      parked: [{ story: 'US-9', iteration: 4, findings: [] }],
      recheck: undefined,
      claims: [
        {
          iteration: 3,
          story: 'US-1',
          verdict: 'rejected',
          findings: [{ rule: 'skipped-test', file: 'test/a,b.test.ts', line: 12, detail: 'it.skip added\nhere: 50%' }],
        },
        { iteration: 5, story: 'US-2', verdict: 'accepted', findings: [] },
      ],
    } as unknown as Report;
    expect(githubAnnotations(report)).toEqual([
      '::error file=test/a%2Cb.test.ts,line=12,title=star-loop rejected US-1%3A skipped-test::iteration 3: it.skip added%0Ahere: 50%25',
      '::warning title=star-loop parked US-9::parked after iteration 4; see .star/pending_for_human.md',
      '::warning title=star-loop%3A stalled::3 iterations: no progress (exit 4)',
    ]);
  });
});
