const CREDENTIAL_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;

export type Redact = (text: string) => string;

/** Values of environment variables whose names look like credentials, longest first. */
export function credentialValues(env: NodeJS.ProcessEnv): Array<{ name: string; value: string }> {
  return Object.entries(env)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length >= 8 && CREDENTIAL_NAME.test(e[0]))
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value.length - a.value.length);
}

/** Replaces every credential value with `[redacted NAME]`; the identity when there are none. */
export function createRedactor(env: NodeJS.ProcessEnv): { redact: Redact; longest: number } {
  const secrets = credentialValues(env);
  if (secrets.length === 0) return { redact: (t) => t, longest: 0 };
  return {
    redact: (text) =>
      secrets.reduce((out, s) => (out.includes(s.value) ? out.split(s.value).join(`[redacted ${s.name}]`) : out), text),
    longest: secrets[0]?.value.length ?? 0,
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
