import type { LoopEventWithTime } from '../loop/events.js';
import type { GateBaseline, GateResult } from '../state/state-schema.js';
import { formatDuration } from '../util/parse-duration.js';
import { renderPlan } from './render-plan.js';

/** One concise human line (or none) per loop event. Pure, so the terminal output is table-tested. */
const baselineGate = (g: GateBaseline) =>
  `${g.name} ${g.status}${g.failures ? ` (${g.failures} failing)` : ''} — ${evidenceWords(g.tests)}`;

/** Which gates give star-loop every test by name, which only totals or an exit code. */
function evidenceWords(tests: GateResult['tests']): string {
  if (!tests || tests.evidence === 'exit-code') return 'exit code only';
  const n = tests.totals ? tests.totals.pass + tests.totals.fail + tests.totals.skip + tests.totals.todo : 0;
  return tests.evidence === 'per-test' ? `${n} tests by name (${tests.runner})` : `totals only (${tests.runner})`;
}

export function renderEventLine(event: LoopEventWithTime): string | undefined {
  switch (event.type) {
    case 'run.started':
      return `${
        event.continued ? `star-loop: continuing run ${event.runId}` : `star-loop: run ${event.runId}`
      }\n${renderPlan(event.plan)}`;
    case 'iteration.started':
      return (
        `\n▶ iteration ${event.iteration} ` +
        `(${event.index}/${event.maxIterations})${event.story ? ` — ${event.story}: ${event.storyTitle ?? ''}` : ''}`
      );
    case 'agent.finished': {
      const which = event.attempts > 1 ? ` (${event.agent}, attempt ${event.attempts})` : '';
      const tools =
        event.toolCalls !== undefined ? `, ${event.toolCalls} tool call${event.toolCalls === 1 ? '' : 's'}` : '';
      const error = event.error ? ` — ${event.error}` : '';
      const cost = event.costUsd !== undefined ? ` ($${event.costUsd.toFixed(4)})` : '';
      return `  agent${which} finished in ${formatDuration(event.durationMs)}${tools}${error}${cost}`;
    }
    case 'agent.rate-limited':
      return (
        `  ${event.agent} is rate-limited (${event.detail}); ` +
        `${
          event.next !== event.agent && event.waitMs === 0
            ? `switching to ${event.next}`
            : `waiting ${formatDuration(event.waitMs)}${event.resetAt ? ` (until ${event.resetAt})` : ''} before ` +
              `attempt ${event.attempt + 1}`
        }`
      );
    case 'work.committed':
      return `  committed the agent's uncommitted work as ${event.commit.slice(0, 10)}`;
    case 'passes.restored':
      return `  set passes of ${event.stories.join(', ')} back: only star-loop sets passes, after verification`;
    case 'claim.read':
      if (!event.claim) return `  no completion claim${event.notes.length ? ` (${event.notes.join('; ')})` : ''}`;
      return (
        `  claim: ${event.claim.task ? 'task complete' : event.claim.stories.join(', ')} (via ` +
        `${event.claim.sources.join(', ')}) — verifying`
      );
    case 'gate.finished':
      return (
        `    gate ${event.result.name}: ` +
        `${event.result.status}${event.result.exitCode ? ` (exit ${event.result.exitCode})` : ''} in ` +
        `${formatDuration(event.result.durationMs)}` +
        (event.result.reused ? ` — reused: this tree was checked at ${event.result.reused.slice(0, 10)}` : '') +
        (event.result.modified
          ? ` — it modified ${event.result.modified.files.join(', ')} while it ran (the gate's doing, not the ` +
            `agent's: kept at ${event.result.modified.ref}, put back)`
          : '')
      );
    case 'gate.running':
      return `    gate ${event.gate}: still running (${formatDuration(event.elapsedMs)})`;
    case 'baseline.finished':
      return `baseline (before iteration 1): ${event.gates.map(baselineGate).join(', ') || 'no gates'}`;
    case 'verifier.started':
      return `    verifier (${event.agent}): trying to prove the claim wrong`;
    case 'verifier.finished':
      return `    verifier: ${event.verdict}${event.error ? ` — ${event.error}` : ''}`;
    case 'claim.verdict':
      return event.verdict === 'accepted'
        ? `  ✔ accepted${event.stories.length ? `: ${event.stories.join(', ')} passes` : ''}`
        : `  ✘ rejected: ${event.findings.map((f) => f.detail).join('; ')}`;
    case 'iteration.finished':
      return (
        `  moved: ` +
        `${event.record.moved ? event.record.movement.join(', ') : 'no'}${
          event.stallStreak > 0 ? ` (stall streak ${event.stallStreak})` : ''
        }`
      );
    case 'warning':
      return `  warning: ${event.message}`;
    case 'run.finished':
      return [
        '',
        `star-loop: ${event.stopReason} — ${event.detail} (exit ${event.exitCode})`,
        `  iterations ${event.iterations}, accepted ${event.accepted}, rejected ${event.rejected}, remaining ` +
          `${event.remaining.length ? event.remaining.join(', ') : 'nothing'}`,
        `  report: ${event.reportFile}`,
      ].join('\n');
  }
}
