import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createClaudeStreamParser } from '../../src/agents/claude/parse-claude-stream.js';

async function parseFixture(name: string) {
  const parser = createClaudeStreamParser();
  const text = await readFile(new URL(`../fixtures/claude/${name}`, import.meta.url), 'utf8');
  for (const line of text.split('\n')) parser.onLine(line);
  return parser.result();
}

describe('Claude Code stream-json parser (recorded output shapes)', () => {
  it('takes the final message from result.result only, with session, cost and tokens', async () => {
    const out = await parseFixture('success.jsonl');
    expect(out).toMatchObject({
      finalMessage: 'Wrote hello.txt.\n<promise>COMPLETE</promise>',
      isError: false,
      sessionId: 'b0f6c1de',
      costUsd: 0.0125,
    });
    expect(out.inputTokens).toBe(100 + 30 + 200);
    expect(out.outputTokens).toBe(42);
  });

  it('an API failure that says subtype "success" is an error because is_error is true', async () => {
    const out = await parseFixture('api-error-429.jsonl');
    expect(out.isError).toBe(true);
    expect(out.errorMessage).toContain('API status 429');
  });

  it('max turns is an error; a stream without a result event is an error; junk lines are ignored', async () => {
    expect((await parseFixture('max-turns.jsonl')).errorMessage).toContain('error_max_turns');
    const parser = createClaudeStreamParser();
    for (const line of ['not json', '{"type":"system","subtype":"init","session_id":"s1"}', '{broken'])
      parser.onLine(line);
    expect(parser.result()).toMatchObject({
      isError: true,
      errorMessage: 'no result event in the stream',
      sessionId: 's1',
    });
  });

  it('tells a rate limit from other failures by structured fields only: status, error class, rate_limit_event', async () => {
    expect((await parseFixture('api-error-429.jsonl')).rateLimit).toMatchObject({ kind: 'rate-limit' });
    // Max turns is the run's own limit, even after an earlier api_retry: not the provider's.
    const parser = createClaudeStreamParser();
    parser.onLine('{"type":"system","subtype":"api_retry","error_status":429,"error":"rate_limit"}');
    parser.onLine('{"type":"result","subtype":"error_max_turns","is_error":true,"result":""}');
    expect(parser.result().rateLimit).toBeUndefined();

    const parse = (lines: object[]) => {
      const p = createClaudeStreamParser();
      for (const line of lines) p.onLine(JSON.stringify(line));
      return p.result();
    };
    const failed = (status: number | null, result = 'API Error') => ({
      type: 'result',
      subtype: 'success',
      is_error: true,
      api_error_status: status,
      result,
    });
    expect(parse([failed(529)]).rateLimit?.kind).toBe('overloaded');
    expect(parse([failed(500)]).rateLimit?.kind).toBe('outage');
    expect(parse([failed(401)]).rateLimit).toBeUndefined();
    expect(parse([failed(400)]).rateLimit).toBeUndefined();
    // Words in text never decide: a 400 whose message says "rate limit" is not one.
    expect(parse([failed(400, 'rate limit exceeded; overloaded')]).rateLimit).toBeUndefined();
    const resetsAt = 1_900_000_000;
    const usageLimit = parse([
      { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' } },
      failed(null, "You've hit your limit"),
    ]);
    expect(usageLimit.rateLimit).toMatchObject({ kind: 'rate-limit', resetAt: resetsAt * 1000 });
    expect(usageLimit.rateLimit?.detail).toContain('five_hour');
    // An "allowed" event is information, and a successful run is never limited.
    const allowed = parse([
      { type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning', resetsAt } },
      { type: 'result', subtype: 'success', is_error: false, result: 'ok' },
    ]);
    expect(allowed.rateLimit).toBeUndefined();
    expect(
      parse([
        { type: 'rate_limit_event', rate_limit_info: { status: 'rejected' } },
        { type: 'result', subtype: 'success', is_error: false, result: 'ok' },
      ]).rateLimit,
    ).toBeUndefined();
  });

  it('reads the headless hazards and the usage record: denials, tool calls, plan mode, model, cache tokens', () => {
    const p = createClaudeStreamParser();
    const lines = [
      { type: 'system', subtype: 'init', session_id: 's', model: 'claude-sonnet-4-5', permissionMode: 'default' },
      {
        type: 'assistant',
        message: {
          model: 'claude-sonnet-4-5',
          content: [
            { type: 'text', text: 'x' },
            { type: 'tool_use', name: 'Bash' },
          ],
        },
      },
      { type: 'assistant', message: { content: [{ type: 'tool_use', name: 'ExitPlanMode' }] } },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'done',
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
        permission_denials: [{ tool_name: 'Bash' }, { tool_name: 'Write' }],
      },
    ];
    for (const line of lines) p.onLine(JSON.stringify(line));
    expect(p.result()).toMatchObject({
      model: 'claude-sonnet-4-5',
      toolCalls: 2,
      planMode: true,
      permissionDenials: 2,
      inputTokens: 130,
      cacheReadTokens: 100,
      cacheWriteTokens: 20,
      outputTokens: 5,
    });
    const plan = createClaudeStreamParser();
    plan.onLine('{"type":"system","subtype":"init","permissionMode":"plan"}');
    plan.onLine('{"type":"result","subtype":"success","is_error":false,"result":"plan"}');
    expect(plan.result()).toMatchObject({ planMode: true, toolCalls: 0 });
  });
});
