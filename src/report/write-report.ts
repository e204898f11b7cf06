import { writeFileAtomic } from '../state/atomic-write.js';
import type { StarPaths } from '../state/star-paths.js';
import type { Report } from './build-report.js';
import { renderReportMarkdown } from './render-report-markdown.js';

export async function writeReport(paths: StarPaths, report: Report): Promise<void> {
  await writeFileAtomic(paths.reportJson, `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(paths.reportMd, renderReportMarkdown(report));
}
