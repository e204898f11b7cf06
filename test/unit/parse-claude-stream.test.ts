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
    for (const line of ['not json', '{"type":"system","subtype":"init","session_id":"s1"}', '{broken']) parser.onLine(line);
    expect(parser.result()).toMatchObject({ isError: true, errorMessage: 'no result event in the stream', sessionId: 's1' });
  });
});
