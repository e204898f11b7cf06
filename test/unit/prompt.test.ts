import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/gates/gate.js';
import { buildPrompt } from '../../src/prompt/build-prompt.js';
import { loadTemplates } from '../../src/prompt/load-templates.js';
import { renderTemplate } from '../../src/prompt/render-template.js';

describe('renderTemplate', () => {
  const t = (text: string, partials: Record<string, string> = {}) =>
    new Map([['main', text], ...Object.entries(partials)]);
  it.each([
    ['{{a}} and {{b}}', { a: 'x', b: 2 }, 'x and 2\n'],
    ['{{#a}}shown {{a}}{{/a}}{{^a}}hidden{{/a}}', { a: 'y' }, 'shown y\n'],
    ['{{#a}}shown{{/a}}{{^a}}fallback{{/a}}', { a: '' }, 'fallback\n'],
    ['line 1\n{{#a}}\nblock\n{{/a}}\nline 2', { a: false }, 'line 1\nline 2\n'],
    ['missing: [{{nope}}]', {}, 'missing: []\n'],
  ])('%j', (template, values, expected) => {
    expect(renderTemplate('main', t(template), values)).toBe(expected);
  });

  it('inserts values once: braces in user or agent text are not template syntax', () => {
    expect(renderTemplate('main', t('{{a}}'), { a: '{{b}} {{#b}}x{{/b}}', b: 'INJECTED' })).toBe(
      '{{b}} {{#b}}x{{/b}}\n',
    );
  });

  it('expands partials and names a missing template', () => {
    expect(renderTemplate('main', t('a {{> p}} c', { p: 'b {{v}}\n' }), { v: 1 })).toBe('a b 1 c\n');
    expect(() => renderTemplate('main', t('{{> gone}}'), {})).toThrow(/"gone.md" is missing/);
  });
});

describe('buildPrompt with the shipped templates', async () => {
  const templates = await loadTemplates();
  const gates: Gate[] = [{ name: 'test', command: 'npm test', kind: 'test', source: 'package.json:5' }];
  const prd = {
    userStories: [
      { id: 'US-001', title: 'Add subtract', passes: true },
      {
        id: 'US-002',
        title: 'Add multiply',
        passes: false,
        description: 'As a user…',
        acceptanceCriteria: ['multiply(2,3) is 6'],
      },
    ],
  };
  const base = { templates, iteration: 7, gates, findings: [], journalTail: '', claimFile: '.star/claim.json' };

  it('PRD mode: the story, a line per story, the gates, the Never list and the claim contract', () => {
    const prompt = buildPrompt({
      ...base,
      prd: { file: 'prd.json', prd, story: prd.userStories[1]!, passed: new Set(['US-001']) },
    });
    expect(prompt).toContain('## Your story: US-002 — Add multiply');
    expect(prompt).toContain('- multiply(2,3) is 6');
    expect(prompt).toContain('- [x] US-001: Add subtract\n- [ ] US-002: Add multiply  ← this iteration');
    expect(prompt).toContain('- test: `npm test`');
    expect(prompt).toContain('## Never');
    expect(prompt).toContain('Never `git push`');
    expect(prompt).toContain('`.star/claim.json`');
    expect(prompt).not.toContain('{{');
    // The promise tag never stands alone on a line, so an agent echoing its prompt cannot claim by accident.
    expect(prompt).not.toMatch(/^\s*<promise>COMPLETE<\/promise>\s*$/m);
  });

  it('carries the last rejection verbatim, but bounded whatever the gate printed', () => {
    const huge = 'x'.repeat(100_000);
    const findings = Array.from({ length: 20 }, (_, i) => ({
      rule: 'gate-failed',
      detail: `gate ${i} failed`,
      output: `${huge}\nTHE LAST LINE ${i}`,
    }));
    const prompt = buildPrompt({ ...base, findings, task: { text: 'task', planFile: '.star/plan.md' } });
    expect(prompt).toContain('Your last claim was rejected');
    expect(prompt).toContain('THE LAST LINE 0');
    expect(prompt).toContain('… and 14 more');
    expect(prompt.length).toBeLessThan(20_000);
  });

  it('task mode: asks for a plan first, then works from it', () => {
    const first = buildPrompt({ ...base, task: { text: 'Make it fast', planFile: '.star/plan.md' } });
    expect(first).toContain('There is no plan yet');
    const later = buildPrompt({
      ...base,
      task: { text: 'Make it fast', planFile: '.star/plan.md', plan: '- [x] one\n- [ ] two' },
    });
    expect(later).toContain('- [ ] two');
    expect(later).toContain('first unticked item');
    expect(later).not.toContain('There is no plan yet');
  });
});
