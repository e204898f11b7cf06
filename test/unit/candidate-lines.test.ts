import { describe, expect, it } from 'vitest';
import { candidateLines } from '../../src/safety/candidate-lines.js';
import { MAYBE_SECRET, SECRET_RULES, secretRuleOf } from '../../src/safety/secret-rules.js';

async function linesOf(chunks: string[]): Promise<Array<[number, string]>> {
  const out: Array<[number, string]> = [];
  await candidateLines(chunks, (line, n) => out.push([n, line]));
  return out;
}

const TEXT = [
  'plain line',
  'const awsKey = "AKIAZ7QW3XK2PL9MNB4T"; // and a token: twice in one line',
  'nothing here',
  'nothing here either\r',
  'password: "Tq9!vR2#mW7zLp4k"\r',
  '',
  'last line without a newline: sk-ant-abcdefghijklmnopqrstuvwxyz',
].join('\n');

const EXPECTED: Array<[number, string]> = [
  [2, 'const awsKey = "AKIAZ7QW3XK2PL9MNB4T"; // and a token: twice in one line'],
  [5, 'password: "Tq9!vR2#mW7zLp4k"'],
  [7, 'last line without a newline: sk-ant-abcdefghijklmnopqrstuvwxyz'],
];

describe('candidateLines: the lines a secret could be on, numbered as git numbers them', () => {
  it('reports each line with a trigger once, with its number, CR dropped; other lines never', async () => {
    expect(await linesOf([TEXT])).toEqual(EXPECTED);
  });

  it('gives the same lines however the text is cut into chunks (every cut point, and a byte at a time)', async () => {
    for (let cut = 0; cut <= TEXT.length; cut++)
      expect(await linesOf([TEXT.slice(0, cut), TEXT.slice(cut)]), `cut at ${cut}`).toEqual(EXPECTED);
    expect(await linesOf([...TEXT])).toEqual(EXPECTED);
  });

  it('counts lines across a long text with nothing in it', async () => {
    const filler = 'x = 1\n'.repeat(50_000);
    expect(await linesOf([filler, 'ghp_abcdefghijklmnopqrstuvwxyz0123456789\n', filler])).toEqual([
      [50_001, 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ]);
  });

  it('reads a line longer than the limit in parts: memory stays bounded, a key anywhere in it is found', async () => {
    const key = 'AKIAZ7QW3XK2PL9MNB4T';
    const zeros = '\0'.repeat(10_000);
    // The key first in one chunk, straddling a cut, and last; the limit is 2,000 characters here (1 MiB).
    for (const at of [0, 5_000, 9_990, 10_000]) {
      const line = `${zeros.slice(0, at)}${key}${zeros.slice(at)}`;
      const chunks = ['before\n', ...(line.match(/[\s\S]{1,700}/g) ?? []), '\nafter\n'];
      const parts: Array<[number, string]> = [];
      await candidateLines(chunks, (text, n) => parts.push([n, text]), 2_000);
      expect(
        parts.every(([n]) => n === 2),
        `key at ${at}`,
      ).toBe(true);
      expect(
        parts.some(([, text]) => secretRuleOf(text) === 'aws-access-key-id'),
        `key at ${at}`,
      ).toBe(true);
      expect(Math.max(...parts.map(([, text]) => text.length))).toBeLessThan(2_000 + 700 + 4096 + 1);
    }
  });

  it('misses no line a rule catches: every known shape and secret-like name contains the trigger', () => {
    const samples = [
      '-----BEGIN RSA PRIVATE KEY-----',
      'AKIAZ7QW3XK2PL9MNB4T',
      'ASIAZ7QW3XK2PL9MNB4T',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'github_pat_abcdefghijklmnopqrstuvwxyz',
      'xoxb-1234567890-abcdefghij',
      'rk_live_abcdefghijklmnopqrstuvwx',
      'AIzaSyA1234567890abcdefghijklmnopqrstuv',
      'sk-ant-abcdefghijklmnopqrstuvwxyz',
      'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789',
      'DB_PASSWD=q8Zr2Lw9Xk3Vb7Nm1Tp4',
      'db_pwd: q8Zr2Lw9Xk3Vb7Nm1Tp4',
      'GCP_CREDENTIALS=q8Zr2Lw9Xk3Vb7Nm1Tp4',
      'client_secret = "q8Zr2Lw9Xk3Vb7Nm1Tp4"',
    ];
    for (const line of samples) {
      expect(secretRuleOf(line), line).toBeDefined();
      expect(MAYBE_SECRET.test(line), line).toBe(true);
    }
    // One sample per known rule at least.
    const caught = new Set(samples.map((s) => secretRuleOf(s)));
    for (const { rule } of SECRET_RULES) expect(caught, rule).toContain(rule);
  });
});
