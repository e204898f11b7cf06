/** Secrets that must never be committed. Each finding names the rule, file and line — never the value. */
export const SECRET_RULES: Array<{ rule: string; pattern: RegExp }> = [
  { rule: 'private-key', pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----/ },
  { rule: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/ },
  { rule: 'aws-secret-access-key', pattern: /aws.{0,20}(?:secret|private).{0,20}[=:]\s*['"]?[0-9a-zA-Z/+]{40}\b/i },
  { rule: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { rule: 'slack-token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/ },
  { rule: 'stripe-key', pattern: /\b(?:sk|rk)_live_[0-9a-zA-Z]{24,}\b/ },
  { rule: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { rule: 'anthropic-api-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { rule: 'openai-api-key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}/ },
];

const ASSIGNMENT = new RegExp(
  String.raw`\b([A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|credential)[A-Za-z0-9_]*)["']?\s*[:=]` +
    String.raw`\s*["']?([^"'\s,;]{12,})`,
  'i',
);
const PLACEHOLDER =
  /^(?:\$|<|\{|process\.env|os\.environ|env\.|getenv|example|your|changeme|dummy|placeholder|x{6,}|\*{4,})/i;

/** Shannon entropy in bits per character: random keys score high, words and paths low. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/** Well-known shapes that are identifiers, not secrets, however random they look: a UUID. */
const NOT_SECRET = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Test code and fixtures are full of made-up keys: there only a known token shape counts, not entropy. */
export const TEST_OR_FIXTURE =
  /(^|\/)(tests?|__tests__|spec|fixtures?|__fixtures__|testdata)\/|[._-](test|spec)\.[^/]+$|(^|\/)test_[^/]+\.py$/;

/**
 * Text every rule above needs somewhere in its line (each known shape's fixed part, each secret-like name's
 * stem): a line without any of it breaks no rule, so a scan looks for this first and reads no other line.
 */
export const MAYBE_SECRET = new RegExp(
  [
    ...['-----BEGIN ', 'AKIA', 'ASIA', 'ABIA', 'ACCA', 'aws', 'gh[pousr]_', 'github_pat_', 'xox[abprs]-', '_live_'],
    ...['AIza', 'sk-', 'key', 'token', 'secret', 'passw', 'pwd', 'credential'],
  ].join('|'),
  'i',
);

/**
 * The rule a line breaks, if any: a known token shape, or (outside test code and fixtures) a high-entropy
 * value assigned to a secret-like name.
 */
export function secretRuleOf(line: string, path = ''): string | undefined {
  if (!MAYBE_SECRET.test(line)) return undefined;
  const known = SECRET_RULES.find((r) => r.pattern.test(line));
  if (known) return known.rule;
  if (TEST_OR_FIXTURE.test(path)) return undefined;
  const m = ASSIGNMENT.exec(line);
  const value = m?.[2];
  if (!value || PLACEHOLDER.test(value) || NOT_SECRET.test(value)) return undefined;
  if (entropy(value) >= 3.5 && /\d/.test(value) && /[A-Za-z]/.test(value)) return 'high-entropy-secret';
  return undefined;
}
