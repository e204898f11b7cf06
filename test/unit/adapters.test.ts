import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type AgentContext, type AgentOutputParser, agentEnv } from '../../src/agents/agent-adapter.js';
import { createClaudeStreamParser } from '../../src/agents/claude/parse-claude-stream.js';
import { createCodexParser } from '../../src/agents/codex/parse-codex-json.js';
import { createGeminiParser } from '../../src/agents/gemini/parse-gemini-stream.js';
import { createGrokParser } from '../../src/agents/grok/parse-grok-json.js';
import { createOpencodeParser } from '../../src/agents/opencode/parse-opencode-json.js';
import { agentAdapters, getAgentAdapter } from '../../src/agents/registry.js';

/** Output recorded from the real CLIs (pinned versions, against the test suite's mock model server). */
async function parse(create: () => AgentOutputParser, fixture: string) {
  const parser = create();
  const text = await readFile(new URL(`../fixtures/${fixture}`, import.meta.url), 'utf8');
  for (const line of text.split('\n')) parser.onLine(line);
  return parser.result();
}
function parseLines(create: () => AgentOutputParser, lines: object[]) {
  const parser = create();
  for (const line of lines) parser.onLine(JSON.stringify(line));
  return parser.result();
}

describe('every adapter reads its CLI’s recorded output: final message, errors, usage, rate limits', () => {
  it('Codex: the last agent_message, tokens from turn.completed, turn.failed as an error', async () => {
    expect(await parse(createCodexParser, 'codex/success.jsonl')).toMatchObject({
      finalMessage: 'Done.\n<promise>COMPLETE</promise>',
      isError: false,
      sessionId: expect.any(String),
      inputTokens: 200,
      outputTokens: 40,
      toolCalls: 1,
    });
    const limited = await parse(createCodexParser, 'codex/rate-limit-429.jsonl');
    expect(limited).toMatchObject({ isError: true, rateLimit: { kind: 'rate-limit' } });
    expect(limited.errorMessage).toContain('429 Too Many Requests');
    expect((await parse(createCodexParser, 'codex/server-error-500.jsonl')).rateLimit?.kind).toBe('outage');
    // Tool output that prints a promise is not the final message.
    const echoed = parseLines(createCodexParser, [
      { type: 'item.completed', item: { type: 'command_execution', aggregated_output: '<promise>COMPLETE</promise>' } },
      { type: 'item.completed', item: { type: 'agent_message', text: 'Not done yet.' } },
      { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } },
    ]);
    expect(echoed.finalMessage).toBe('Not done yet.');
    // A stream cut short (killed) is an error, not a silent success.
    expect(parseLines(createCodexParser, [{ type: 'turn.started' }]).isError).toBe(true);
  });

  it('Gemini: assistant deltas after the last tool call joined, stats, result errors; exit 173 is a 429', async () => {
    expect(await parse(createGeminiParser, 'gemini/success.jsonl')).toMatchObject({
      finalMessage: 'Done.\n<promise>COMPLETE</promise>',
      isError: false,
      sessionId: expect.any(String),
      inputTokens: 200,
      outputTokens: 40,
      toolCalls: 1,
    });
    const bad = await parse(createGeminiParser, 'gemini/bad-request-400.jsonl');
    expect(bad).toMatchObject({ isError: true });
    expect(bad.rateLimit).toBeUndefined();
    const gemini = getAgentAdapter('gemini');
    expect(gemini.interpretExit?.(144, bad).rateLimit).toBeUndefined();
    expect(gemini.interpretExit?.(173, bad).rateLimit).toMatchObject({ kind: 'rate-limit' });
    expect(gemini.interpretExit?.(247, bad).rateLimit).toMatchObject({ kind: 'outage' });
    // Recorded after Gemini CLI's own ten retries of a 429 (about four minutes): exit 173 = 429 & 255.
    const limited = await parse(createGeminiParser, 'gemini/rate-limit-429.jsonl');
    expect(limited.isError).toBe(true);
    expect(gemini.interpretExit?.(173, limited).rateLimit).toMatchObject({ kind: 'rate-limit' });
    const split = parseLines(createGeminiParser, [
      { type: 'message', role: 'assistant', content: '<promise>COMPLETE</promise> once I am done. ', delta: true },
      { type: 'tool_use', tool_name: 'run_shell_command' },
      { type: 'message', role: 'assistant', content: 'Done', delta: true },
      { type: 'message', role: 'assistant', content: ' now.', delta: true },
      { type: 'result', status: 'success', stats: {} },
    ]);
    expect(split.finalMessage).toBe('Done now.');
  });

  it('opencode: the last step’s text parts, tokens summed, cost 0 means unknown, error statusCode', async () => {
    const ok = await parse(createOpencodeParser, 'opencode/success.jsonl');
    expect(ok).toMatchObject({
      finalMessage: 'Done.\n<promise>COMPLETE</promise>',
      isError: false,
      inputTokens: 200,
      outputTokens: 40,
      toolCalls: 1,
    });
    expect(ok.sessionId).toMatch(/^ses_/);
    expect(ok.costUsd).toBeUndefined();
    // Recorded after opencode's own retries of a 429 ran out.
    const limited = await parse(createOpencodeParser, 'opencode/rate-limit-429.jsonl');
    expect(limited).toMatchObject({ isError: true, rateLimit: { kind: 'rate-limit' } });
    expect(limited.errorMessage).toContain('APIError');
    const priced = parseLines(createOpencodeParser, [
      { type: 'step_finish', part: { tokens: { input: 10, output: 5, cache: { read: 0, write: 0 } }, cost: 0.25 } },
    ]);
    expect(priced.costUsd).toBe(0.25);
  });

  it('Claude Code (real 429 with a long retry-after), Cursor and Amp (the same stream shape), Grok (one JSON object)', async () => {
    expect(await parse(createClaudeStreamParser, 'claude/rate-limit-429-real.jsonl')).toMatchObject({
      isError: true,
      rateLimit: { kind: 'rate-limit' },
    });
    const cursor = parseLines(createClaudeStreamParser, [
      { type: 'system', subtype: 'init', session_id: 'c1', model: 'composer' },
      { type: 'tool_call', subtype: 'started', call_id: 't1' },
      { type: 'tool_call', subtype: 'completed', call_id: 't1' },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'Done.',
        session_id: 'c1',
        usage: { inputTokens: 7, outputTokens: 3 },
      },
    ]);
    expect(cursor).toMatchObject({ finalMessage: 'Done.', toolCalls: 1, inputTokens: 7, outputTokens: 3 });
    const grok = createGrokParser();
    for (const line of [
      'warming up',
      '{',
      '  "text": "All done.",',
      '  "stopReason": "EndTurn",',
      '  "sessionId": "g1"',
      '}',
    ])
      grok.onLine(line);
    expect(grok.result()).toMatchObject({ finalMessage: 'All done.', sessionId: 'g1', permissionDenials: 0 });
    const cancelled = createGrokParser();
    cancelled.onLine('{"text":"","stopReason":"Cancelled","sessionId":"g2"}');
    expect(cancelled.result().permissionDenials).toBe(1);
  });
});

describe('adapters: invocations and environment', () => {
  const ctx: AgentContext = {
    root: '/repo',
    prompt: 'PROMPT',
    iteration: 3,
    runDir: '/repo/.star/runs/0003',
    claimFile: '/repo/.star/claim.json',
    role: 'implementer',
    model: 'm1',
    promptFile: '/repo/.star/runs/0003/prompt.md',
    baseEnv: {
      PATH: '/bin',
      HOME: '/home/u',
      GITHUB_TOKEN: 'gh',
      OPENAI_API_KEY: 'oa',
      ANTHROPIC_API_KEY: 'an',
      GEMINI_API_KEY: 'ge',
      DATABASE_PASSWORD: 'db',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: '/repo/.star/hooks',
      GIT_CONFIG_COUNT: '1',
    },
  };

  it('each named agent gets only its own credentials; the push-blocking git config always; --pass-env lets one through', () => {
    const names = (name: string, extra: Partial<AgentContext> = {}) =>
      Object.keys(getAgentAdapter(name).invocation({ ...ctx, ...extra }).env).filter(
        (k) => ctx.baseEnv[k] !== undefined,
      );
    expect(names('claude')).toEqual([
      'PATH',
      'HOME',
      'ANTHROPIC_API_KEY',
      'GIT_CONFIG_KEY_0',
      'GIT_CONFIG_VALUE_0',
      'GIT_CONFIG_COUNT',
    ]);
    expect(names('codex')).toContain('OPENAI_API_KEY');
    expect(names('codex')).not.toContain('ANTHROPIC_API_KEY');
    expect(names('gemini')).toContain('GEMINI_API_KEY');
    for (const name of ['claude', 'codex', 'gemini', 'opencode', 'amp', 'cursor-agent', 'grok', 'aider', 'demo']) {
      expect(names(name)).not.toContain('GITHUB_TOKEN');
      expect(names(name)).toContain('GIT_CONFIG_VALUE_0');
    }
    expect(names('codex', { passEnv: ['DATABASE_PASSWORD'] })).toContain('DATABASE_PASSWORD');
    // A user's own command gets the user's whole environment.
    expect(names('command', { agentCmd: 'x' })).toContain('GITHUB_TOKEN');
    expect(agentEnv(ctx, [])).toMatchObject({
      STAR_ITERATION: '3',
      STAR_ROLE: 'implementer',
      STAR_CLAIM_FILE: '/repo/.star/claim.json',
    });
  });

  it('prompt on stdin where the CLI reads it, in argv or a file where it does not; the model flag each CLI knows', () => {
    const inv = (name: string) => getAgentAdapter(name).invocation(ctx);
    expect(inv('codex')).toMatchObject({
      args: ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', '-m', 'm1', '-'],
      input: 'PROMPT',
    });
    expect(inv('gemini')).toMatchObject({
      args: ['-p', '', '--output-format', 'stream-json', '--approval-mode', 'yolo', '-m', 'm1'],
      input: 'PROMPT',
    });
    expect(inv('opencode')).toMatchObject({ args: ['run', '--format', 'json', '-m', 'm1'], input: 'PROMPT' });
    expect(inv('cursor-agent').args.at(-1)).toBe('PROMPT');
    expect(inv('cursor-agent').input).toBeUndefined();
    expect(inv('grok').args.slice(0, 2)).toEqual(['--prompt-file', '/repo/.star/runs/0003/prompt.md']);
    expect(inv('aider').args.slice(0, 2)).toEqual(['--message-file', '/repo/.star/runs/0003/prompt.md']);
    expect(inv('amp').notes[0]).toContain('amp chooses its own model');
    expect(Object.keys(agentAdapters)).toEqual([
      'claude',
      'codex',
      'gemini',
      'opencode',
      'amp',
      'cursor-agent',
      'grok',
      'aider',
      'command',
      'demo',
    ]);
  });
});
