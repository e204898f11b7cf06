import { resolve } from 'node:path';
import { ExitCode } from '../errors.js';
import { loadPrd } from '../prd/load-prd.js';
import { blockedStories, passedIds, readyStories } from '../prd/select-next-story.js';
import { printLine } from '../report/terminal-output.js';

/**
 * `star-loop prd ready [--prd FILE] [--json]`: the stories that can start now (not passed, every dependency
 * passed), in the order the loop takes them — for a CI matrix that runs one `star-loop run --story ID` per job.
 */
export async function prdReadyCommand(flags: { prd?: string; json?: boolean }): Promise<ExitCode> {
  const file = resolve(process.cwd(), flags.prd ?? 'prd.json');
  const { prd } = await loadPrd(file);
  const passed = passedIds(prd);
  const ready = readyStories(prd, passed).map((s) => ({ id: s.id, title: s.title, priority: s.priority }));
  const blocked = blockedStories(prd, passed).map((s) => ({
    id: s.id,
    waitingFor: (s.dependsOn ?? []).filter((d) => !passed.has(d)),
  }));
  if (flags.json) printLine(JSON.stringify({ ready, blocked, passed: [...passed] }));
  else {
    printLine(ready.length > 0 ? ready.map((s) => `${s.id}\t${s.title}`).join('\n') : '(no story is ready)');
    for (const b of blocked) printLine(`# ${b.id} waits for ${b.waitingFor.join(', ')}`);
  }
  return ExitCode.Complete;
}
