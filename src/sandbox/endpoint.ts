/** A host and port the sandbox lets traffic through to. */
export interface Endpoint {
  host: string;
  port: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127\./.test(host);
}

/**
 * `host`, `host:port` or a URL (`https://api.example.com/v1`) as an endpoint: the port from the URL or the
 * spec, else 443 (80 for an http URL). Undefined when it names no host.
 */
export function parseEndpoint(spec: string): Endpoint | undefined {
  const text = spec.trim();
  if (!text) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
      return url.hostname ? { host: url.hostname.replace(/^\[|\]$/g, ''), port } : undefined;
    } catch {
      return undefined;
    }
  }
  const m = /^(\[[^\]]+\]|[^:/\s]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m?.[1]) return undefined;
  const port = m[2] ? Number(m[2]) : 443;
  return port > 0 && port < 65536 ? { host: m[1].replace(/^\[|\]$/g, '').toLowerCase(), port } : undefined;
}

/** The endpoints of specs already checked (resolveRunOptions refuses those that name no host). */
export function parseEndpoints(specs: readonly string[]): Endpoint[] {
  return specs.map(parseEndpoint).filter((e): e is Endpoint => e !== undefined);
}

export const showEndpoint = (e: Endpoint) => `${e.host}:${e.port}`;

/** Whether `host:port` is one of the allowed endpoints (a host matches case-insensitively). */
export function allows(allowed: readonly Endpoint[], host: string, port: number): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allowed.some((e) => e.port === port && e.host === h);
}
