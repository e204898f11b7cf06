import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureAgentClis } from '../helpers/agent-clis.js';
import { calcRepo, prdText } from '../helpers/calc-repo.js';
import { type MockScript, type MockServer, startMockModelServer } from '../helpers/mock-model-server.js';
import { readJson, runCli } from '../helpers/run-cli.js';

/**
 * The real-CLI tier: star-loop drives the real Claude Code, Codex, Gemini CLI and opencode binaries
 * (pinned, installed from npm into a cache folder), each talking to a scripted model on 127.0.0.1. The
 * model is the only stand-in: the CLIs really run the shell commands, star-loop really reads their output.
 */

// The implementer writes the story's code and test through the CLI's own shell tool, then claims.
const WORK = [
  'mkdir -p src test',
  "printf 'export const subtract = (a, b) => a - b;\\n' > src/subtract.js",
  "cat > test/subtract.test.js <<'EOF'",
  "import assert from 'node:assert/strict';",
  "import { test } from 'node:test';",
  "import { subtract } from '../src/subtract.js';",
  '',
  "test('subtract', () => assert.equal(subtract(5, 3), 2));",
  'EOF',
].join('\n');
const SCRIPT: MockScript = {
  implementer: [{ shell: WORK }, { text: 'Subtract is done and tested.\n<promise>COMPLETE</promise>' }],
  verifier: [
    { shell: `printf '%s' '{"verdict":"accept","findings":[]}' > .star/verdict.json` },
    { text: 'Checked: it holds.' },
  ],
};
// Prices for the mock's model, so agents that report tokens but no cost get an estimated one.
const CONFIG = { prices: { 'mock-model': { input: 1000, output: 1000 } }, backoff: { initial: '200ms', max: '1s' } };

interface Setup {
  env: Record<string, string>;
  args: string[];
}

type Cli = 'claude' | 'codex' | 'gemini' | 'opencode';

/** Each CLI's own way to be pointed at the mock, from ../shared/agent-clis.md; a fresh HOME per run. */
async function setupCli(cli: Cli, url: string, bin: string): Promise<Setup> {
  const home = await mkdtemp(join(tmpdir(), `star-${cli}-home-`));
  const env: Record<string, string> = { HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` };
  // In the sandbox an agent reaches only its provider's hosts: the mock's is allowed the way a user allows a
  // self-hosted endpoint.
  const allow = ['--sandbox-allow-host', url];
  switch (cli) {
    case 'claude':
      Object.assign(env, {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: 'test-key',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      });
      return { env, args: ['--agent', 'claude', ...allow] };
    case 'codex': {
      const codexHome = join(home, '.codex');
      await mkdir(codexHome);
      await writeFile(
        join(codexHome, 'config.toml'),
        `model_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}/v1"\nenv_key = "OPENAI_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n`,
      );
      Object.assign(env, { CODEX_HOME: codexHome, OPENAI_API_KEY: 'test-key' });
      return { env, args: ['--agent', 'codex', '--model', 'mock-model', ...allow] };
    }
    case 'gemini':
      await mkdir(join(home, '.gemini'));
      await writeFile(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      Object.assign(env, {
        GEMINI_API_KEY: 'test-key',
        GOOGLE_GEMINI_BASE_URL: url,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        TMPDIR: home,
      });
      return { env, args: ['--agent', 'gemini', '--model', 'gemini-2.5-pro', ...allow] };
    case 'opencode': {
      const config = join(home, 'opencode.json');
      await writeFile(
        config,
        JSON.stringify({
          provider: {
            mock: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Mock',
              options: { baseURL: `${url}/v1`, apiKey: 'test-key' },
              models: { 'mock-model': { name: 'Mock Model' } },
            },
          },
          model: 'mock/mock-model',
          small_model: 'mock/mock-model',
          autoupdate: false,
          share: 'disabled',
        }),
      );
      Object.assign(env, {
        OPENCODE_CONFIG: config,
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        XDG_CONFIG_HOME: join(home, 'config'),
        XDG_DATA_HOME: join(home, 'data'),
        XDG_CACHE_HOME: join(home, 'cache'),
        XDG_STATE_HOME: join(home, 'state'),
        // opencode installs plugins in the background; with no registry it carries on without them.
        npm_config_registry: 'http://127.0.0.1:9/',
      });
      return { env, args: ['--agent', 'opencode', '--model', 'mock/mock-model', ...allow] };
    }
  }
}

interface State {
  records: Array<{
    verdict: string;
    stall: boolean;
    agent: {
      name?: string;
      sessionId?: string;
      attempts?: number;
      isError: boolean;
      usage?: { inputTokens?: number; outputTokens?: number; costUsd?: number; costSource: string };
    };
    verification?: { verifier?: { verdict: string; agent: string } };
  }>;
}

let bin = '';
let server: MockServer | undefined;

beforeAll(async () => {
  bin = await ensureAgentClis();
}, 600_000);

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runThrough(cli: Cli, script: MockScript) {
  server = await startMockModelServer(script);
  const { repo } = await calcRepo({
    'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]),
    'star.config.json': `${JSON.stringify(CONFIG)}\n`,
  });
  const setup = await setupCli(cli, server.url, bin);
  const result = await runCli(repo, ['run', '--prd', 'prd.json', ...setup.args], setup.env);
  // Each CLI ran in the sandbox, reaching its model only because its host was allowed.
  expect(result.stdout).toContain('Sandbox (--sandbox auto): on');
  const state = await readJson<State>(join(repo, '.star/state.json'));
  return { repo, result, state, requests: server.requests };
}

const EXPECTED_COST: Record<Cli, string> = {
  claude: 'reported',
  codex: 'estimated',
  gemini: 'estimated',
  opencode: 'estimated',
};

describe.each(['claude', 'codex', 'gemini', 'opencode'] as const)('the real %s CLI, driven by star-loop', (cli) => {
  it('edits the repository inside an iteration; the claim is verified by the same CLI as verifier; a usage record', async () => {
    const { repo, result, state, requests } = await runThrough(cli, SCRIPT);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(await readFile(join(repo, 'src/subtract.js'), 'utf8')).toContain('a - b');
    expect(existsSync(join(repo, 'test/subtract.test.js'))).toBe(true);
    const [record] = state.records;
    expect(record).toMatchObject({ verdict: 'accepted', agent: { name: cli, isError: false } });
    expect(record?.verification?.verifier).toMatchObject({ verdict: 'accept', agent: cli });
    expect(record?.agent.sessionId).toEqual(expect.any(String));
    // The mock charges 100 input and 20 output tokens a turn: two turns at least.
    expect(record?.agent.usage?.outputTokens).toBeGreaterThanOrEqual(40);
    expect(record?.agent.usage?.costSource).toBe(EXPECTED_COST[cli]);
    expect(record?.agent.usage?.costUsd).toBeGreaterThan(0);
    expect(requests.some((r) => r.role === 'verifier')).toBe(true);
    const report = await readJson<{ usage: { costSource: string; tokens: number } }>(join(repo, '.star/report.json'));
    expect(report.usage.tokens).toBeGreaterThan(0);
  }, 180_000);

  it('a rate limit (429s, then success) is not counted as a failure', async () => {
    // Claude gives up at once on a long retry-after and Codex on a 429 without one: star-loop waits and runs
    // them again. Gemini and opencode retry by themselves (Gemini from 5 s; opencode honours retry-after).
    const fail: Record<Cli, MockScript['failFirst']> = {
      claude: { count: 2, status: 429, retryAfter: 120 },
      codex: { count: 2, status: 429 },
      gemini: { count: 2, status: 429 },
      opencode: { count: 2, status: 429, retryAfter: 1 },
    };
    const { result, state, requests } = await runThrough(cli, { ...SCRIPT, failFirst: fail[cli] });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(requests.filter((r) => r.status === 429)).toHaveLength(fail[cli]?.count ?? 0);
    const [record] = state.records;
    expect(record).toMatchObject({ verdict: 'accepted', stall: false, agent: { isError: false } });
    if (cli === 'claude' || cli === 'codex') {
      expect(record?.agent.attempts).toBe(3);
      expect(result.stdout).toContain(`${cli} is rate-limited`);
    }
  }, 180_000);
});

describe.each(['claude', 'codex', 'gemini', 'opencode'] as const)('a fleet through the real %s CLI', (cli) => {
  it('the worker runs the real CLI in the story’s own worktree; the story is verified, merged, and its worktree removed', async () => {
    server = await startMockModelServer(SCRIPT);
    const { repo } = await calcRepo({
      'prd.json': prdText([{ id: 'US-001', title: 'Subtract' }]),
      'star.config.json': `${JSON.stringify(CONFIG)}\n`,
    });
    const setup = await setupCli(cli, server.url, bin);
    const result = await runCli(repo, ['fleet', ...setup.args], setup.env);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    // The CLI's shell tool wrote into the worktree (not the root); the merge brought it to the integration branch.
    expect(await readFile(join(repo, 'src/subtract.js'), 'utf8')).toContain('a - b');
    const report = await readJson<{ mergeOrder: Array<{ story: string }>; stories: Array<{ worktree?: string }> }>(
      join(repo, '.star/report.json'),
    );
    expect(report.mergeOrder.map((m) => m.story)).toEqual(['US-001']);
    expect(report.stories[0]?.worktree).toBeUndefined();
    const worker = await readJson<State>(join(repo, '.star/fleet/stories/US-001/attempt-1/state.json'));
    expect(worker.records[0]).toMatchObject({ verdict: 'accepted', agent: { name: cli, isError: false } });
    expect(worker.records[0]?.verification?.verifier).toMatchObject({ verdict: 'accept', agent: cli });
  }, 180_000);
});
