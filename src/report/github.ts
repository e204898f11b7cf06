import type { Finding } from '../state/finding-schema.js';
import type { Report } from './build-report.js';
import type { FleetReport } from './fleet-report.js';

/** GitHub's workflow-command escaping: data escapes %, CR, LF; property values also : and ,. */
const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function annotation(
  level: 'error' | 'warning',
  title: string,
  message: string,
  finding?: Pick<Finding, 'file' | 'line'>,
): string {
  const props = [
    finding?.file ? `file=${prop(finding.file)}` : undefined,
    finding?.line ? `line=${finding.line}` : undefined,
    `title=${prop(title)}`,
  ].filter(Boolean);
  return `::${level} ${props.join(',')}::${data(message)}`;
}

/**
 * The run as GitHub Actions annotations (pure): safety violations and the findings of rejected claims as
 * errors on their file and line, parked stories and a run that did not complete as warnings.
 */
export function githubAnnotations(report: Report): string[] {
  const lines: string[] = [];
  for (const s of report.safety)
    for (const v of s.violations)
      lines.push(annotation('error', `star-loop safety: ${v.rule}`, `iteration ${s.iteration}: ${v.detail}`, v));
  for (const claim of report.claims.filter((c) => c.verdict === 'rejected')) {
    for (const f of claim.findings) {
      lines.push(
        annotation(
          'error',
          `star-loop rejected ${claim.story ?? 'the claim'}: ${f.rule}`,
          `iteration ${claim.iteration}: ${f.detail}`,
          f,
        ),
      );
    }
  }
  for (const f of report.recheck?.findings ?? [])
    lines.push(annotation('error', `star-loop regression: ${f.rule}`, f.detail, f));
  for (const p of report.parked)
    lines.push(
      annotation(
        'warning',
        `star-loop parked ${p.story}`,
        `parked after iteration ${p.iteration}; see .star/pending_for_human.md`,
      ),
    );
  if (report.stopReason !== 'complete') {
    lines.push(
      annotation(
        report.exitCode === 5 ? 'error' : 'warning',
        `star-loop: ${report.stopReason}`,
        `${report.detail} (exit ${report.exitCode})`,
      ),
    );
  }
  return lines;
}

/** A fleet as annotations (pure): stories parked or sent back as warnings, a fleet that did not complete too. */
export function fleetAnnotations(report: FleetReport): string[] {
  const lines: string[] = [];
  for (const s of report.stories.filter((story) => story.status === 'parked')) {
    lines.push(
      annotation(
        'warning',
        `star-loop fleet parked ${s.id}`,
        `${s.detail ?? 'parked'}; see .star/pending_for_human.md`,
      ),
    );
  }
  if (report.stopReason !== 'complete') {
    lines.push(
      annotation(
        report.exitCode === 5 ? 'error' : 'warning',
        `star-loop fleet: ${report.stopReason}`,
        `${report.detail} (exit ${report.exitCode})`,
      ),
    );
  }
  return lines;
}
