/**
 * `npm run demo`: the real loop, end to end, on a sample repository made in a temp folder, driven by the
 * scripted DEMO agent (no model, no API key, no network).
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Git } from '../git/git.js';
import { runAttached } from '../proc/run-attached.js';
import { printLine } from '../report/terminal-output.js';
import { packageFile } from '../util/package-root.js';
import { demoFiles } from './demo-repository.js';

const BIN = packageFile('bin/star-loop.js');

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-demo-'));
  for (const [file, text] of Object.entries(demoFiles)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  const git = await Git.init(dir, 'main');
  await git.commitAll('initial commit: demo-calc');
  await git.switchToNewBranch('star-loop/demo');

  printLine('star-loop demo — the agent is a SCRIPTED DEMO AGENT, not a language model (no API key, no network).');
  printLine(`Sample repository: ${dir}`);
  printLine('Command: star-loop run --prd prd.json --agent demo --max-iterations 8\n');
  const code = await runAttached(
    process.execPath,
    [BIN, 'run', '--prd', 'prd.json', '--agent', 'demo', '--max-iterations', '8'],
    dir,
  );
  printLine('\n──────── .star/report.md ────────');
  printLine(await readFile(join(dir, '.star', 'report.md'), 'utf8').catch(() => '(no report was written)'));
  const exited = `star-loop exited ${code}.`;
  printLine(`The sample repository stays at ${dir} — look at \`git log\` and .star/ there. ${exited}`);
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
