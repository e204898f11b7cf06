import type { Candidate, DroppedGate, Gate } from './gate.js';
import { gateOrder } from './gate.js';
import { checkingForm, type HygieneFacts } from './gate-hygiene.js';
import { cannotRun, type ToolFacts } from './gate-tools.js';
import { normalizeCommand } from './looks-like-gate.js';
import { mergeSuites, type SuiteFacts } from './merge-suites.js';

/** What recon found: the gates, and every command it found and left out, with the reason. */
export interface Discovered {
  gates: Gate[];
  dropped: DroppedGate[];
}

export type GateFacts = HygieneFacts & ToolFacts & SuiteFacts;

/**
 * `pytest …` as `python -m pytest …`, which puts the project's root on sys.path: the suite runs from the source
 * tree, as the gates run it, without the project installed (`pytest` alone imports an installed copy, or none).
 */
export const pytestAsModule = (command: string) => command.replace(/^(?:pytest|py\.test)(?=\s|$)/, 'python -m pytest');

/**
 * Candidates → gates (pure): each in the form that only checks, or left out (it writes files with no
 * checking form, needs the network, or its program is not on PATH); one gate per command and per suite;
 * cheap kinds first.
 */
export function settleGates(found: readonly Candidate[], facts: GateFacts): Discovered {
  const dropped: DroppedGate[] = [];
  const seen = new Set<string>();
  const runnable: Gate[] = [];
  for (const { drop, ...gate } of found) {
    const leave = (reason: string) => dropped.push({ ...gate, reason });
    if (drop) {
      leave(drop);
      continue;
    }
    const checking = checkingForm(gate.command, facts);
    if ('drop' in checking) {
      leave(checking.drop);
      continue;
    }
    let command = pytestAsModule(checking.command);
    // Debian and many containers have python3 but no `python`.
    if (/^python\s/.test(command) && !facts.hasTool('python') && facts.hasTool('python3'))
      command = command.replace(/^python\s/, 'python3 ');
    const key = normalizeCommand(command);
    if (seen.has(key)) continue;
    seen.add(key);
    const why = cannotRun(command, facts);
    if (why) {
      leave(`${why}: gate skipped`);
      continue;
    }
    runnable.push(
      command === gate.command ? gate : { ...gate, command, name: gate.name === gate.command ? command : gate.name },
    );
  }
  const merged = mergeSuites(runnable, facts);
  return { gates: merged.gates.sort(gateOrder), dropped: [...dropped, ...merged.dropped] };
}
