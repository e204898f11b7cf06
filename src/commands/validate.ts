import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ExitCode, InputError } from '../errors.js';
import { checkPrd } from '../prd/load-prd.js';
import { passedIds, selectNextStory } from '../prd/select-next-story.js';
import { printLine } from '../report/terminal-output.js';

/** `star-loop validate [prd.json]`: every problem with its path and a fix, or a one-line summary. */
export async function validateCommand(file = 'prd.json'): Promise<ExitCode> {
  const path = resolve(process.cwd(), file);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new InputError(
      `${file}: ${error.code === 'ENOENT' ? 'no such file' : `cannot be read (${error.code})`}`,
      'pass the path of your prd.json',
    );
  });
  const checked = checkPrd(text);
  if (checked.syntaxError !== undefined)
    throw new InputError(`${file}: not valid JSON (${checked.syntaxError})`, 'fix the JSON syntax first');
  if (!checked.prd) {
    throw new InputError(
      `${file}: ${checked.problems.length} ` +
        `problem(s)\n${checked.problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`,
      'fix each one (see docs/prd.md); `star-loop import` converts other PRD shapes',
    );
  }
  const passed = passedIds(checked.prd);
  const next = selectNextStory(checked.prd, passed);
  printLine(
    `${file}: valid — ${checked.prd.userStories.length} stories, ${passed.size} ` +
      `passing${next ? `; next: ${next.id} ${next.title}` : ''}`,
  );
  return ExitCode.Complete;
}
