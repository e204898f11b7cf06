import { describe, expect, it } from 'vitest';
import { agentBoxNeeds } from '../../src/agents/sandbox-needs.js';
import { changedBins, planDependencies } from '../../src/gates/dependencies.js';
import { protectedFolders } from '../../src/safety/protected-files.js';

describe('planDependencies: do the trusted dependencies still fit the commit?', () => {
  it.each([
    [[], { kind: 'trusted' }],
    [['src/a.js', 'package.json'], { kind: 'trusted' }],
    [['package-lock.json'], { kind: 'install', lockfile: 'package-lock.json', command: 'npm ci --no-audit --no-fund' }],
    [['pnpm-lock.yaml'], { kind: 'install', lockfile: 'pnpm-lock.yaml', command: 'pnpm install --frozen-lockfile' }],
    [['yarn.lock'], { kind: 'install', lockfile: 'yarn.lock', command: 'yarn install --frozen-lockfile' }],
    [['bun.lock'], { kind: 'install', lockfile: 'bun.lock', command: 'bun install --frozen-lockfile' }],
    // A package's own lockfile in a monorepo is not the workspace's.
    [['packages/a/package-lock.json'], { kind: 'trusted' }],
    [['poetry.lock'], { kind: 'stale', lockfile: 'poetry.lock' }],
    [
      ['uv.lock', 'package-lock.json'],
      { kind: 'install', lockfile: 'package-lock.json', command: 'npm ci --no-audit --no-fund' },
    ],
  ])('%j → %j', (changed, plan) => {
    expect(planDependencies(changed)).toEqual(plan);
  });
});

describe('changedBins', () => {
  it('names what was added, removed and changed', () => {
    const before = new Map([
      ['node_modules/.bin/vitest', '../vitest/vitest.mjs|1:1:1'],
      ['node_modules/.bin/tsc', '../typescript/bin/tsc|1:1:1'],
    ]);
    const after = new Map([
      ['node_modules/.bin/vitest', '/tmp/evil|1:1:1'],
      ['node_modules/.bin/node', '|20:2:1'],
    ]);
    expect(changedBins(before, after)).toEqual([
      'node_modules/.bin/node',
      'node_modules/.bin/tsc',
      'node_modules/.bin/vitest',
    ]);
    expect(changedBins(before, before)).toEqual([]);
  });
});

describe('protectedFolders', () => {
  it('the folders a glob protects whole, and no others', () => {
    expect(protectedFolders(['.env*', '.github/workflows/**', '/migrations/**', 'docs/*.md', 'a/**/b'])).toEqual([
      '.github/workflows',
      'migrations',
    ]);
  });
});

describe("agentBoxNeeds: an agent's folders and hosts in the sandbox", () => {
  const env = {
    HOME: '/home/u',
    XDG_CONFIG_HOME: '/home/u/.config',
    OPENCODE_CONFIG: '/etc/opencode.json',
    OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1',
  };
  it('home folders under $HOME, env folders narrowed to the agent’s own, hosts with their base URLs', () => {
    const needs = agentBoxNeeds(
      [
        {
          sandbox: {
            home: ['.codex'],
            envPaths: ['XDG_CONFIG_HOME/opencode', 'OPENCODE_CONFIG', 'UNSET_VAR'],
            hosts: ['api.openai.com'],
            urlEnv: ['OPENAI_BASE_URL', 'UNSET_URL'],
            files: ['/opt/star-loop/dist/demo/demo-agent.js'],
          },
        } as never,
      ],
      env,
    );
    expect(needs).toEqual({
      homeWritable: ['/home/u/.codex'],
      // Never all of ~/.config (it holds gh's token): only the agent's folder in it.
      writable: ['/home/u/.config/opencode', '/etc/opencode.json'],
      hosts: [
        { host: 'api.openai.com', port: 443 },
        { host: '127.0.0.1', port: 8080 },
      ],
      files: ['/opt/star-loop/dist/demo/demo-agent.js'],
    });
  });
});
