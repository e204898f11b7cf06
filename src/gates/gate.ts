export type GateKind = 'typecheck' | 'lint' | 'build' | 'test' | 'other';

/** A quality gate: one exact command star-loop runs itself to check a claim. */
export interface Gate {
  name: string;
  command: string;
  kind: GateKind;
  /** Where it was found, `file:line` relative to the repository root (or `star.config.json`). */
  source: string;
}

/** A command a discoverer found, or found and ruled out (`drop` says why, shown in the plan). */
export interface Candidate extends Gate {
  drop?: string;
}

/** A command recon found and did not make a gate, with the reason (printed in the plan and report). */
export interface DroppedGate {
  name: string;
  command: string;
  source: string;
  reason: string;
}

/** What a discoverer may read: the repository's files, by path relative to the root. */
export interface RepoFiles {
  read(path: string): Promise<string | undefined>;
  list(dir: string): Promise<string[]>;
}

/** One ecosystem's way of declaring its gates (package.json scripts, Makefile targets, …). */
export interface GateDiscoverer {
  name: string;
  discover(files: RepoFiles): Promise<Candidate[]>;
}

const KIND_ORDER: GateKind[] = ['typecheck', 'lint', 'build', 'test', 'other'];

/** Cheap gates first, so a claim that fails them does not wait for the test suite's verdict first. */
export function gateOrder(a: Gate, b: Gate): number {
  return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
}

/** Guesses a gate's kind from a target or script name, or from its command. */
export function kindOf(raw: string): GateKind {
  // The shell's `test -f x` as a command of its own checks a file, not a test suite (`go test -v` is one).
  const text = raw.replace(/(^|[;&|(!]\s*|\bif\s+)test\s+-[a-zA-Z]\b/g, '$1');
  if (/type-?check|tsc\b|mypy|pyright|\bvet\b/i.test(text)) return 'typecheck';
  if (/lint|clippy|ruff|eslint|biome|fmt|format|check-style|golangci/i.test(text)) return 'lint';
  if (/\btest|pytest|jest|vitest|mocha|\bava\b|\btap\b|nextest|unittest|\btox\b|\bnox\b|spec\b/i.test(text))
    return 'test';
  if (/build|compile/i.test(text)) return 'build';
  return 'other';
}

/** 1-based line number of the first line matching `pattern`, or undefined. */
export function lineOf(text: string, pattern: RegExp): number | undefined {
  const lines = text.split('\n');
  const index = lines.findIndex((l) => pattern.test(l));
  return index === -1 ? undefined : index + 1;
}

export function at(file: string, line: number | undefined): string {
  return line ? `${file}:${line}` : file;
}
