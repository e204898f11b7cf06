import { createHash } from 'node:crypto';
import { SECRET_RULES } from './secret-rules.js';

const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;

export type Redact = (text: string) => string;

/** Values of environment variables whose names look like credentials, longest first. */
export function credentialValues(env: NodeJS.ProcessEnv): Array<{ name: string; value: string }> {
  return Object.entries(env)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length >= 8 && CREDENTIAL_NAME.test(e[0]))
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value.length - a.value.length);
}

/** The longest secret a stream can split across two chunks that the pattern redaction must still see whole. */
const LONGEST_PATTERN = 160;
const GLOBAL_RULES = SECRET_RULES.map(({ rule, pattern }) => ({
  rule,
  pattern: new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`),
}));

/** `[redacted RULE sha256:PREFIX]`: which rule, and a hash prefix to tell two values apart — never the value. */
const mark = (rule: string, value: string) =>
  `[redacted ${rule} sha256:${createHash('sha256').update(value).digest('hex').slice(0, 8)}]`;

/**
 * Replaces every credential value from the environment with `[redacted NAME]`, and every value of a known
 * secret shape (SECRET_RULES: keys, tokens) with the rule and a hash prefix: whatever an agent prints or
 * writes in its claim, its secrets never reach a log, the journal, the state, a prompt or a report.
 */
export function createRedactor(env: NodeJS.ProcessEnv): { redact: Redact; longest: number } {
  const secrets = credentialValues(env);
  const byPattern = (text: string) =>
    GLOBAL_RULES.reduce((out, { rule, pattern }) => out.replace(pattern, (value) => mark(rule, value)), text);
  return {
    redact: (text) =>
      byPattern(
        secrets.reduce(
          (out, s) => (out.includes(s.value) ? out.split(s.value).join(`[redacted ${s.name}]`) : out),
          text,
        ),
      ),
    longest: Math.max(secrets[0]?.value.length ?? 0, LONGEST_PATTERN),
  };
}

/** Redacts every string inside a JSON-like value. */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  return value;
}
