import type { TestCase, TestOutcome } from '../state/test-report-schema.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) =>
    e.startsWith('#x') || e.startsWith('#X')
      ? String.fromCodePoint(Number.parseInt(e.slice(2), 16))
      : e.startsWith('#')
        ? String.fromCodePoint(Number(e.slice(1)))
        : (ENTITIES[e] ?? _),
  );

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
    out[m[1] ?? ''] = decodeXml(m[3] ?? m[4] ?? '');
  }
  return out;
}

function outcomeOf(body: string): TestOutcome {
  if (/<(failure|error)\b/.test(body)) return 'fail';
  const skipped = /<skipped\b([^>]*)/.exec(body);
  if (skipped) {
    const { type = '', message = '' } = attributes(skipped[1] ?? '');
    return /xfail|todo/i.test(`${type} ${message}`) ? 'todo' : 'skip';
  }
  return 'pass';
}

/**
 * The test cases of a JUnit XML report (pytest's --junitxml, Maven Surefire, Gradle, PHPUnit, node's junit
 * reporter, …). Identity: the `file` attribute, else the class name, else the enclosing suites' names.
 * Pure, and tolerant: a report cut short yields the cases before the cut.
 */
export function parseJunit(xml: string): TestCase[] {
  const cases: TestCase[] = [];
  const suites: string[] = [];
  const tags = /<(\/?)(testsuite|testcase)\b([^>]*?)(\/?)>/g;
  for (let m = tags.exec(xml); m; m = tags.exec(xml)) {
    const [, closing, kind, attrs = '', selfClosing] = m;
    if (kind === 'testsuite') {
      if (closing) suites.pop();
      else if (!selfClosing) suites.push(attributes(attrs).name ?? '');
      continue;
    }
    if (closing) continue;
    let body = '';
    if (!selfClosing) {
      const end = xml.indexOf('</testcase>', tags.lastIndex);
      body = end === -1 ? xml.slice(tags.lastIndex) : xml.slice(tags.lastIndex, end);
      if (end !== -1) tags.lastIndex = end + '</testcase>'.length;
    }
    const a = attributes(attrs);
    const name = a.name ?? '';
    const file = a.file ?? a.classname ?? suites.filter(Boolean).join(' > ');
    cases.push({ file, name, outcome: outcomeOf(body) });
  }
  return cases;
}
