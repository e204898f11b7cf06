import { isAbsolute, join } from 'node:path';
import { type Endpoint, parseEndpoint } from '../sandbox/endpoint.js';
import type { AgentAdapter } from './agent-adapter.js';

/** An agent's needs as the sandbox takes them: absolute writable paths and the endpoints it may reach. */
export interface AgentBoxNeeds {
  homeWritable: string[];
  writable: string[];
  hosts: Endpoint[];
  /** Files it runs from, seen read-only. */
  files: string[];
}

/** What the sandbox gives these agents (an implementer and its fallback run in the same box), from `env`. */
export function agentBoxNeeds(adapters: readonly AgentAdapter[], env: NodeJS.ProcessEnv): AgentBoxNeeds {
  const home = env.HOME;
  const out: AgentBoxNeeds = { homeWritable: [], writable: [], hosts: [], files: [] };
  for (const adapter of adapters) {
    const needs = adapter.sandbox;
    if (!needs) continue;
    if (home) out.homeWritable.push(...needs.home.map((p) => join(home, p)));
    out.files.push(...(needs.files ?? []));
    for (const spec of needs.envPaths ?? []) {
      const [name = '', ...sub] = spec.split('/');
      const value = env[name];
      if (value && isAbsolute(value)) out.writable.push(join(value, ...sub));
    }
    for (const host of [...needs.hosts, ...(needs.urlEnv ?? []).map((name) => env[name] ?? '')]) {
      const endpoint = parseEndpoint(host);
      if (endpoint) out.hosts.push(endpoint);
    }
  }
  return out;
}
