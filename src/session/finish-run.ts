import { relative } from 'node:path';
import type { LoopContext } from '../loop/loop-context.js';
import { remainingWork } from '../loop/remaining-work.js';
import { buildReport } from '../report/build-report.js';
import { githubAnnotations } from '../report/github.js';
import { publishReport } from '../report/publish-report.js';
import { renderReportMarkdown } from '../report/render-report-markdown.js';
import { redactDeep } from '../safety/redactor.js';
import type { RunState } from '../state/state-schema.js';
import { runOnFinish } from './run-on-finish.js';

/** The report phase of a run: report.md/json (credentials scrubbed), the run.finished event, --on-finish. */
export async function finishRun(ctx: LoopContext, state: RunState): Promise<number> {
  const { options, paths, emit } = ctx;
  const remaining = await remainingWork(ctx, state).catch(() => ['(unknown: prd.json cannot be read)']);
  const kept = state.records.flatMap((r) => (r.safety.length > 0 ? r.keptRefs : []));
  for (const message of await ctx.evidence.settle()) emit({ type: 'warning', message });
  const report = buildReport({
    state,
    plan: ctx.plan,
    remaining,
    recovery: await ctx.evidence.locate(kept),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    verify: options.verify,
  });
  const published = redactDeep(report, ctx.redactor.redact);
  const written = await publishReport(
    paths,
    { json: published, markdown: renderReportMarkdown(published), annotations: () => githubAnnotations(published) },
    options.json,
  ).then(
    () => true,
    (error: Error) => {
      // The disk full: what can be said goes to stderr, so an unattended run still leaves its reason somewhere.
      process.stderr.write(
        `star-loop: the report could not be written (${error.message}). Report: ${report.stopReason} — ` +
          `${report.detail}; iterations ${report.iterations}, accepted ` +
          `${report.accepted.map((a) => a.story).join(', ') || 'none'}, remaining ${remaining.join(', ') || 'none'}\n`,
      );
      return false;
    },
  );
  emit({
    type: 'run.finished',
    runId: state.runId,
    stopReason: report.stopReason,
    exitCode: report.exitCode,
    detail: report.detail,
    reportFile: written ? relative(process.cwd(), paths.reportMd) || paths.reportMd : '(not written: see above)',
    iterations: report.iterations,
    accepted: report.accepted.length,
    rejected: report.rejected.length,
    remaining,
  });
  const { stopReason, exitCode } = report;
  const finished = {
    command: options.onFinish,
    root: options.root,
    paths,
    env: ctx.env,
    runId: state.runId,
    stopReason,
    exitCode,
  };
  await runOnFinish(finished, (message) => emit({ type: 'warning', message }));
  return report.exitCode;
}
