#!/usr/bin/env node
// A scripted stand-in for a coding agent: the only part of star-loop's tests that is not real. Driven by a
// scenario file, it performs real edits and commits in the repository it runs in, writes claims, and
// prints output as plain text or in Claude Code's stream-json format. Usage:
//   node scripted-agent.mjs SCENARIO.json [claude-args...]
// The scenario's `steps[k]` drives call k+1 (a counter file beside the scenario counts calls); `then`
// drives every later call. A step may: write/append/delete files, commit, flip `passes` in prd.json,
// write the claim file (object, or a string written verbatim), print a final message, echo the prompt,
// print N junk bytes, sleep, and exit with a code. In claude-stream-json format a step may also be rate-limited
// (`rateLimited: {status, resetInSec}`), fail (`isError`, `apiErrorStatus`), make tool calls (`toolNames`,
// `toolCalls: 0`), have tools denied (`permissionDenials`), go to plan mode, and report usage (`usage`, `noCost`). Every call also records its argv and env in calls.jsonl.
// As the verifier (STAR_ROLE=verifier) it follows `scenario.verifier` (steps/repeat; `verdict` is written to
// STAR_VERDICT_FILE as given) and by default accepts. With `stories: {ID: script}`, the story in STAR_STORY_ID picks
// its own script (and its own counters).
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

const scenarioFile = process.argv[2];
const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8'));
// The verifier role (STAR_ROLE=verifier) has its own script and counter; by default it accepts.
const verifier = process.env.STAR_ROLE === 'verifier';
// `stories: { ID: script }` (fleet tests): each story has its own script and counters, whichever worker runs it.
const storyId = process.env.STAR_STORY_ID;
const own = storyId ? scenario.stories?.[storyId] : undefined;
const base = own ?? scenario;
const script = verifier
  ? (base.verifier ?? scenario.verifier ?? { repeat: { verdict: { verdict: 'accept', findings: [] } } })
  : base;
const counterFile = `${scenarioFile}${own ? `.${storyId}` : ''}${verifier ? '.verifier' : ''}.calls`;
const call = (existsSync(counterFile) ? Number(readFileSync(counterFile, 'utf8')) : 0) + 1;
writeFileSync(counterFile, String(call));
const step = script.steps?.[call - 1] ?? script.repeat ?? {};
const format = scenario.format ?? 'text';
// Read stdin as a stream: readFileSync(0) can fail with EAGAIN on a pipe when the machine is busy.
async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
const prompt = step.ignoreStdin ? '' : await readStdin();
appendFileSync(
  `${scenarioFile}.log.jsonl`,
  `${JSON.stringify({ role: verifier ? 'verifier' : 'implementer', call, argv: process.argv.slice(3), cwd: process.cwd(), env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('STAR_') || k === 'IS_SANDBOX')), promptBytes: Buffer.byteLength(prompt) })}\n`,
);

function git(...args) {
  execFileSync('git', ['-c', 'user.name=Scripted Agent', '-c', 'user.email=agent@example.invalid', ...args], {
    stdio: 'ignore',
  });
}
function out(obj) {
  process.stdout.write(`${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n`);
}

if (step.sleepMs) await new Promise((r) => setTimeout(r, step.sleepMs));
for (const [file, text] of Object.entries(step.write ?? {})) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text.replaceAll('{{call}}', String(call)));
}
for (const [file, text] of Object.entries(step.append ?? {}))
  appendFileSync(file, text.replaceAll('{{call}}', String(call)));
for (const file of step.delete ?? []) rmSync(file, { force: true });
for (const [from, to] of Object.entries(step.rename ?? {})) {
  mkdirSync(dirname(to), { recursive: true });
  renameSync(from, to);
}
if (step.flipPasses) {
  const prd = JSON.parse(readFileSync('prd.json', 'utf8'));
  for (const story of prd.userStories) if (step.flipPasses.includes(story.id)) story.passes = true;
  writeFileSync('prd.json', `${JSON.stringify(prd, null, 2)}\n`);
}
// Like a real agent that was told not to commit but tries: in star-loop's sandbox `.git` is read-only, the
// commit fails, and the agent carries on (star-loop commits the files itself).
if (step.commit) {
  try {
    git('add', '-A');
    git(
      'commit',
      '-q',
      '--allow-empty',
      ...(step.noVerify ? ['--no-verify'] : []),
      '-m',
      step.commit.replaceAll('{{call}}', String(call)),
    );
  } catch {
    process.stderr.write('scripted agent: git commit failed (read-only .git?)\n');
  }
}
if (step.verdict !== undefined && process.env.STAR_VERDICT_FILE) {
  writeFileSync(
    process.env.STAR_VERDICT_FILE,
    typeof step.verdict === 'string' ? step.verdict : JSON.stringify(step.verdict),
  );
}
if (step.claim !== undefined && process.env.STAR_CLAIM_FILE) {
  writeFileSync(process.env.STAR_CLAIM_FILE, typeof step.claim === 'string' ? step.claim : JSON.stringify(step.claim));
}
if (step.printBytes) {
  const line = Buffer.from(`${'x'.repeat(1023)}\n`);
  const chunk = Buffer.concat(Array.from({ length: 64 }, () => line));
  for (let sent = 0; sent < step.printBytes; sent += chunk.length) writeSync(1, chunk);
}
const final = step.final ?? '';
if (format === 'claude-stream-json') {
  // Claude Code's stream-json, as observed from the real binary (../shared/agent-clis.md): init, assistant
  // turns (text and tool_use), an optional rate_limit_event, then the result with usage and cost.
  const limited = step.rateLimited; // { status?: 429|529, resetInSec?: number }
  const status = limited ? (limited.status ?? 429) : step.isError ? (step.apiErrorStatus ?? 400) : null;
  out({
    type: 'system',
    subtype: 'init',
    session_id: 'sess-scripted',
    cwd: process.cwd(),
    model: step.model ?? 'scripted',
    permissionMode: step.permissionMode ?? 'bypassPermissions',
    tools: ['Bash', 'Write'],
  });
  if (step.echoPrompt)
    out({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: prompt }] } });
  for (const text of step.assistantTexts ?? [])
    out({ type: 'assistant', message: { content: [{ type: 'text', text }] }, session_id: 'sess-scripted' });
  for (const [i, name] of (step.toolNames ?? (step.toolCalls === 0 ? [] : ['Bash'])).entries())
    out({
      type: 'assistant',
      message: { content: [{ type: 'tool_use', id: `tu${i}`, name, input: {} }] },
      session_id: 'sess-scripted',
    });
  if (limited?.resetInSec !== undefined)
    out({
      type: 'rate_limit_event',
      rate_limit_info: {
        status: 'rejected',
        resetsAt: Math.floor(Date.now() / 1000) + limited.resetInSec,
        rateLimitType: 'five_hour',
      },
    });
  if (limited)
    out({
      type: 'assistant',
      message: { model: '<synthetic>', content: [{ type: 'text', text: final }] },
      error: status === 429 ? 'rate_limit' : 'server_error',
    });
  const usage = step.usage ?? {
    input_tokens: 100,
    output_tokens: 20,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  out({
    type: 'result',
    subtype: 'success',
    is_error: Boolean(step.isError || limited),
    api_error_status: status,
    result: final,
    session_id: 'sess-scripted',
    ...(step.noCost ? {} : { total_cost_usd: step.costUsd ?? 0.0123 }),
    usage,
    permission_denials: Array.from({ length: step.permissionDenials ?? 0 }, (_, i) => ({
      tool_name: 'Bash',
      tool_use_id: `d${i}`,
    })),
  });
} else {
  if (step.echoPrompt) process.stdout.write(prompt);
  if (final) out(final);
}
process.exit(step.exit ?? 0);
