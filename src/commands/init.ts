import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExitCode } from '../errors.js';
import { discoverGates } from '../gates/discover-gates.js';
import { Git } from '../git/git.js';
import { scaffoldFiles } from '../recon/scaffold-files.js';
import { printLine } from '../report/terminal-output.js';

/** `star-loop init`: scaffolds prd.json, AGENTS.md and star.config.json — never overwriting a file. */
export async function initCommand(): Promise<ExitCode> {
  const root = (await Git.topLevel(process.cwd())) ?? process.cwd();
  const { gates } = await discoverGates(root, undefined);
  for (const [name, text] of scaffoldFiles(gates)) {
    const path = join(root, name);
    if (existsSync(path)) {
      printLine(`kept     ${name} (it exists; star-loop init never overwrites)`);
      continue;
    }
    await writeFile(path, text, { flag: 'wx' });
    printLine(`wrote    ${name}`);
  }
  printLine(
    `\nNext: edit prd.json, check it with \`star-loop validate prd.json\`, see the plan with \`star-loop run ` +
      `--prd prd.json --dry-run\`.`,
  );
  return ExitCode.Complete;
}
