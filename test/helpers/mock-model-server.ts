import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The one stand-in of the real-CLI tier: a scripted model on 127.0.0.1 that speaks the four wire formats
 * the agent CLIs use (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini
 * streamGenerateContent), each as server-sent events. Its choice of reply is stateless — the number of
 * model turns already in the request picks it — so the CLIs' own retries cannot shift the script. The
 * verifier (its prompt says "adversarial verifier") follows a script of its own.
 */
export type MockTurn = { shell: string } | { text: string };

export interface MockScript {
  implementer: MockTurn[];
  verifier: MockTurn[];
  /** The first `count` model requests fail with `status` (then the script goes on). */
  failFirst?: { count: number; status: number; retryAfter?: number };
}

export interface MockServer {
  url: string;
  /** Every model request: which API, and the status it was answered with. */
  requests: Array<{ api: string; status: number; role: 'implementer' | 'verifier' | 'side' }>;
  close(): Promise<void>;
}

const USAGE = { input: 100, output: 20 };

function turnOf(script: MockScript, role: 'implementer' | 'verifier', done: number): MockTurn {
  const turns = script[role];
  return turns[Math.min(done, turns.length - 1)] ?? { text: 'Nothing to do.' };
}

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events)
    res.write(
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    );
  res.end();
}

function anthropic(
  body: { stream?: boolean; messages?: Array<{ role: string }> },
  turn: MockTurn,
  res: ServerResponse,
): void {
  const block =
    'shell' in turn
      ? {
          type: 'tool_use',
          id: `toolu_${Date.now()}`,
          name: 'Bash',
          input: { command: turn.shell, description: 'run' },
        }
      : { type: 'text', text: turn.text };
  const stop = 'shell' in turn ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  const message = {
    id: `msg_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: 'mock-model',
    stop_reason: null,
    usage,
  };
  if (body.stream === false || body.stream === undefined) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content: [block], stop_reason: stop }));
    return;
  }
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [] } } },
    {
      event: 'content_block_start',
      data: {
        type: 'content_block_start',
        index: 0,
        content_block: block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' },
      },
    },
    {
      event: 'content_block_delta',
      data: {
        type: 'content_block_delta',
        index: 0,
        delta:
          block.type === 'tool_use'
            ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
            : { type: 'text_delta', text: block.text },
      },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stop }, usage } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function responses(turn: MockTurn, res: ServerResponse): void {
  const id = `resp_${Date.now()}`;
  const item =
    'shell' in turn
      ? {
          type: 'function_call',
          id: `fc_${Date.now()}`,
          call_id: `call_${Date.now()}`,
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: turn.shell }),
        }
      : {
          type: 'message',
          id: `msg_${Date.now()}`,
          role: 'assistant',
          content: [{ type: 'output_text', text: turn.text, annotations: [] }],
        };
  const usage = {
    input_tokens: USAGE.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: USAGE.input + USAGE.output,
  };
  sse(res, [
    {
      event: 'response.created',
      data: { type: 'response.created', response: { id, status: 'in_progress', output: [] } },
    },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    {
      event: 'response.completed',
      data: { type: 'response.completed', response: { id, status: 'completed', output: [item], usage } },
    },
  ]);
}

function chat(turn: MockTurn, res: ServerResponse): void {
  const base = {
    id: `chatcmpl-${Date.now()}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: 'mock-model',
  };
  const delta =
    'shell' in turn
      ? {
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: `call_${Date.now()}`,
              type: 'function',
              function: { name: 'bash', arguments: JSON.stringify({ command: turn.shell, description: 'run' }) },
            },
          ],
        }
      : { role: 'assistant', content: turn.text };
  sse(res, [
    { data: { ...base, choices: [{ index: 0, delta, finish_reason: null }] } },
    { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'shell' in turn ? 'tool_calls' : 'stop' }] } },
    {
      data: {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: USAGE.input,
          completion_tokens: USAGE.output,
          total_tokens: USAGE.input + USAGE.output,
        },
      },
    },
    { data: '[DONE]' },
  ]);
}

function gemini(turn: MockTurn, res: ServerResponse): void {
  const part =
    'shell' in turn
      ? { functionCall: { name: 'run_shell_command', args: { command: turn.shell } } }
      : { text: turn.text };
  sse(res, [
    {
      data: {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: USAGE.input,
          candidatesTokenCount: USAGE.output,
          totalTokenCount: USAGE.input + USAGE.output,
        },
        modelVersion: 'mock-model',
      },
    },
  ]);
}

function errorBody(api: string, status: number): unknown {
  const message = status === 429 ? 'mock 429: rate limited' : `mock ${status} error`;
  if (api === 'anthropic')
    return { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } };
  if (api === 'gemini')
    return { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } };
  return {
    error: {
      message,
      type: status === 429 ? 'rate_limit_exceeded' : 'server_error',
      code: status === 429 ? 'rate_limit_exceeded' : null,
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startMockModelServer(script: MockScript): Promise<MockServer> {
  const requests: MockServer['requests'] = [];
  let failed = 0;
  const server = createServer(async (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const text = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // an empty or non-JSON body is answered like any other
    }
    const api = url.includes('/messages')
      ? 'anthropic'
      : url.includes('/responses')
        ? 'responses'
        : url.includes('/chat/completions')
          ? 'chat'
          : url.includes(':streamGenerateContent') || url.includes(':generateContent')
            ? 'gemini'
            : 'unknown';
    // opencode first asks for a session title: a side request, not a model turn of the script.
    if (api === 'chat' && /title generator/i.test(JSON.stringify(body.messages ?? []).slice(0, 4000))) {
      requests.push({ api, status: 200, role: 'side' });
      return chat({ text: 'star-loop run' }, res);
    }
    const role = text.includes('adversarial verifier') ? 'verifier' : 'implementer';
    if (script.failFirst && failed < script.failFirst.count) {
      failed += 1;
      requests.push({ api, status: script.failFirst.status, role });
      res.writeHead(script.failFirst.status, {
        'content-type': 'application/json',
        ...(script.failFirst.retryAfter !== undefined ? { 'retry-after': String(script.failFirst.retryAfter) } : {}),
      });
      res.end(JSON.stringify(errorBody(api, script.failFirst.status)));
      return;
    }
    requests.push({ api, status: 200, role });
    const count = (items: unknown, match: (item: Record<string, unknown>) => boolean) =>
      Array.isArray(items) ? items.filter((i) => match(i as Record<string, unknown>)).length : 0;
    switch (api) {
      case 'anthropic':
        return anthropic(
          body,
          turnOf(
            script,
            role,
            count(body.messages, (m) => m.role === 'assistant'),
          ),
          res,
        );
      case 'responses':
        return responses(
          turnOf(
            script,
            role,
            count(body.input, (i) => i.type === 'function_call' || i.type === 'custom_tool_call'),
          ),
          res,
        );
      case 'chat':
        return chat(
          turnOf(
            script,
            role,
            count(body.messages, (m) => m.role === 'assistant'),
          ),
          res,
        );
      case 'gemini':
        return gemini(
          turnOf(
            script,
            role,
            count(body.contents, (c) => c.role === 'model'),
          ),
          res,
        );
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
