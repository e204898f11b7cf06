// A reporter for node's test runner (`node --test`), loaded through NODE_OPTIONS by star-loop's gates: it
// writes one JSON line per finished test — file, full name with its suites, outcome — to the file named by
// STAR_LOOP_TEST_EVENTS plus this process's id (a gate may run node --test more than once), once, when the
// run ends (replacing whatever a test file wrote there), and prints nothing (the user's own reporter still
// prints). Runs in the gate's process, so it depends on nothing but node itself.
import { writeFileSync } from 'node:fs';

interface TestData {
  name: string;
  nesting: number;
  file?: string;
  skip?: boolean | string;
  todo?: boolean | string;
  details?: { type?: string; error?: { failureType?: string; cause?: { failureType?: string } } };
}

export default async function* starLoopReporter(source: AsyncIterable<{ type: string; data: TestData }>) {
  const target = process.env.STAR_LOOP_TEST_EVENTS;
  const suites = new Map<string, string[]>();
  const lines: string[] = [];
  for await (const event of source) {
    const { data } = event;
    if (!target || !data || typeof data.name !== 'string') continue;
    const key = data.file ?? '';
    const stack = suites.get(key) ?? [];
    suites.set(key, stack);
    if (event.type === 'test:start') {
      stack.length = data.nesting;
      stack[data.nesting] = data.name;
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (data.details?.type === 'suite') continue;
    const failureType = data.details?.error?.failureType ?? data.details?.error?.cause?.failureType;
    const outcome = data.todo
      ? 'todo'
      : data.skip
        ? 'skip'
        : event.type === 'test:pass'
          ? 'pass'
          : failureType === 'cancelledByParent'
            ? 'cancelled'
            : 'fail';
    const name = [...stack.slice(0, data.nesting), data.name].join(' > ');
    lines.push(`${JSON.stringify({ file: data.file ?? '', name, outcome })}\n`);
  }
  if (target) writeFileSync(`${target}.${process.pid}`, lines.join(''));
  yield '';
}
