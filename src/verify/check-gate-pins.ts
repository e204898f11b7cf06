import type { Finding } from '../state/finding-schema.js';
import type { ChangeSet } from './change-set.js';
import { pinSources } from './pins/index.js';
import { type PinSource, wholeFile } from './pins/pin-source.js';

const show = (v: string | undefined) => (v === undefined ? '(absent)' : v.length > 120 ? `${v.slice(0, 120)}…` : v);

/**
 * The gate commands are frozen at recon; so is what they run. Any change to a gate's script, target, runner
 * or linter configuration, a CI workflow, or a file a gate executes (`gateFiles`: the script behind `npm
 * run lint`, a makefile it includes) since the run started is a finding naming the file and part.
 */
export function checkGatePins(change: ChangeSet, gateFiles: readonly string[] = []): Finding[] {
  const findings: Finding[] = [];
  const ran: PinSource = { name: 'a file the gates run', matches: (p) => gateFiles.includes(p), parts: wholeFile };
  for (const file of change.files) {
    const paths = [file.path, file.oldPath].filter((p): p is string => Boolean(p));
    const source = [ran, ...pinSources].find((s) => paths.some((p) => s.matches(p)));
    if (!source) continue;
    const before = file.before !== undefined ? source.parts(file.before) : new Map<string, string>();
    const after = file.after !== undefined ? source.parts(file.after) : new Map<string, string>();
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const b = before.get(key);
      const a = after.get(key);
      if (b === a) continue;
      // A script added since recon (`test:watch`) is one no gate ran: a gate that starts to run it changes
      // its own script, and that is caught.
      if (b === undefined && key.startsWith('scripts.')) continue;
      const detail =
        key === 'the whole file'
          ? `${file.path} (${source.name}) was ` +
            `${file.status === 'D' ? 'deleted' : file.status === 'A' ? 'added' : 'changed'}: the gates are ` +
            `pinned for the run`
          : `${file.path}: ${key} changed from ${show(b)} to ${show(a)}: the gates are pinned for the run`;
      findings.push({
        rule: 'gate-changed',
        file: file.path,
        line: file.added[0]?.line ?? file.removed[0]?.line,
        detail,
      });
    }
  }
  return findings;
}
