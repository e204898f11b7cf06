import { type AgentAdapter, agentEnv } from '../agent-adapter.js';
import { kindOfStatus } from '../classify-failure.js';
import { createGeminiParser } from './parse-gemini-stream.js';

/** Gemini CLI exits with the HTTP status & 255 after an API error: 429 → 173, 500 → 244, 503 → 247. */
const EXIT_STATUS: Readonly<Record<number, number>> = { 173: 429, 244: 500, 246: 502, 247: 503, 248: 504 };

/** Gemini CLI in headless mode; the prompt on stdin (`-p ''` turns headless mode on, stdin is the prompt). */
export const geminiAdapter: AgentAdapter = {
  name: 'gemini',
  description: "Gemini CLI: gemini -p '' --output-format stream-json --approval-mode yolo",
  executable: () => 'gemini',
  credentials: [/^GEMINI_/, /^GOOGLE_/],
  sandbox: {
    home: ['.gemini'],
    envPaths: ['GEMINI_CLI_HOME'],
    hosts: [
      'generativelanguage.googleapis.com',
      'cloudcode-pa.googleapis.com',
      'oauth2.googleapis.com',
      'www.googleapis.com',
    ],
    urlEnv: ['GOOGLE_GEMINI_BASE_URL', 'GOOGLE_VERTEX_BASE_URL'],
  },
  capabilities: {
    structuredOutput: true,
    sessionId: true,
    tokens: true,
    cost: false,
    rateLimitSignal: true,
    permissionDenials: false,
    budgetFlags: false,
  },
  invocation(ctx) {
    const args = [
      '-p',
      '',
      '--output-format',
      'stream-json',
      '--approval-mode',
      'yolo',
      ...(ctx.model ? ['-m', ctx.model] : []),
    ];
    return {
      command: 'gemini',
      args,
      env: agentEnv(ctx, geminiAdapter.credentials),
      input: ctx.prompt,
      display: `gemini ${args.map((a) => a || "''").join(' ')} < prompt`,
      notes: [],
      model: ctx.model,
    };
  },
  createParser: createGeminiParser,
  interpretExit(exitCode, output) {
    const status = exitCode !== undefined ? EXIT_STATUS[exitCode] : undefined;
    const kind = kindOfStatus(status);
    if (!kind || output.rateLimit) return output;
    return {
      ...output,
      isError: true,
      errorMessage: output.errorMessage ?? `exit code ${exitCode} (HTTP ${status})`,
      rateLimit: {
        kind,
        detail:
          `${kind} (HTTP ${status}, exit ` +
          `${exitCode})${output.errorMessage ? `: ${output.errorMessage.slice(0, 200)}` : ''}`,
      },
    };
  },
};
