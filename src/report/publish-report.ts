import { appendFile } from 'node:fs/promises';
import { writeFileAtomic } from '../state/atomic-write.js';
import type { StarPaths } from '../state/star-paths.js';
import { printLine } from './terminal-output.js';

/**
 * A run's or a fleet's report: `.star/report.json` and `.star/report.md`, written atomically. In a GitHub
 * Actions job the markdown also joins the job summary and the annotations are printed (not with --json,
 * whose stdout is events only).
 */
export async function publishReport(
  paths: Pick<StarPaths, 'reportJson' | 'reportMd'>,
  report: { json: object; markdown: string; annotations: () => string[] },
  json: boolean,
): Promise<void> {
  await writeFileAtomic(paths.reportJson, `${JSON.stringify(report.json, null, 2)}\n`);
  await writeFileAtomic(paths.reportMd, report.markdown);
  if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, `${report.markdown}\n`);
  if (process.env.GITHUB_ACTIONS === 'true' && !json) for (const line of report.annotations()) printLine(line);
}
