import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ExitCode, InputError } from '../errors.js';
import { importPrd } from '../prd/import-prd.js';
import { checkPrd } from '../prd/load-prd.js';
import { printLine } from '../report/terminal-output.js';

/** `star-loop import FILE [-o prd.json]`: another runner's PRD or a markdown checklist as prd.json. */
export async function importCommand(file: string, flags: { out?: string }): Promise<ExitCode> {
  const source = resolve(process.cwd(), file);
  const out = resolve(process.cwd(), flags.out ?? 'prd.json');
  const text = await readFile(source, 'utf8').catch(() => {
    throw new InputError(`${file}: no such file`, 'pass the path of the PRD or checklist to convert');
  });
  if (existsSync(out))
    throw new InputError(
      `${flags.out ?? 'prd.json'} exists: import never overwrites`,
      'choose another file with -o FILE',
    );
  let imported: ReturnType<typeof importPrd>;
  try {
    imported = importPrd(text);
  } catch (error) {
    throw new InputError(
      `${file}: cannot be imported: ${(error as Error).message}`,
      'give a JSON PRD with stories, or a markdown checklist',
    );
  }
  const json = `${JSON.stringify(imported.prd, null, 2)}\n`;
  const checked = checkPrd(json);
  if (!checked.prd)
    throw new Error(`import produced an invalid prd.json: ${checked.problems.map((p) => p.message).join('; ')}`);
  await writeFile(out, json, { flag: 'wx' });
  printLine(`wrote    ${flags.out ?? 'prd.json'}: ${imported.prd.userStories.length} stories`);
  for (const note of imported.notes) printLine(`  - ${note}`);
  if (imported.gates.length > 0) {
    const config = join(dirname(out), 'star.config.json');
    const gates = JSON.stringify({ gates: imported.gates }, null, 2);
    if (existsSync(config)) printLine(`star.config.json exists: add these gates to it yourself:\n${gates}`);
    else {
      await writeFile(config, `${gates}\n`, { flag: 'wx' });
      printLine(`wrote    star.config.json: ${imported.gates.map((g) => `${g.name} (\`${g.command}\`)`).join(', ')}`);
    }
  }
  return ExitCode.Complete;
}
