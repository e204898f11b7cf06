import { readFile } from 'node:fs/promises';
import { ONE_OFF_PARSE } from '../util/one-off-parse.js';
import { parseJson } from '../util/parse-json.js';
import { type ClaimFile, claimSchema } from './claim-schema.js';

export type ClaimFileResult =
  | { kind: 'absent' }
  | { kind: 'invalid'; reason: string; text: string }
  | { kind: 'valid'; claim: ClaimFile; text: string };

const MAX_CLAIM_BYTES = 64 * 1024;

/** Reads the claim file as the agent left it. Never throws: a bad claim is simply no claim. */
export async function readClaimFile(file: string): Promise<ClaimFileResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { kind: 'absent' };
  }
  if (text.length > MAX_CLAIM_BYTES)
    return { kind: 'invalid', reason: `larger than ${MAX_CLAIM_BYTES} bytes`, text: text.slice(0, 200) };
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (error) {
    return { kind: 'invalid', reason: `not valid JSON (${(error as Error).message})`, text };
  }
  const parsed = claimSchema.safeParse(raw, ONE_OFF_PARSE);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      kind: 'invalid',
      reason: `${first?.path.join('.') || '(top level)'}: ${first?.message ?? 'invalid'}`,
      text,
    };
  }
  return { kind: 'valid', claim: parsed.data, text };
}
