import { describe, expect, it } from 'vitest';
import type { RunOptions } from '../../src/config/options.js';
import type { GitState } from '../../src/git/read-git-state.js';
import { BLOCKED_SCHEME, pushBlockingEnv } from '../../src/safety/block-push.js';
import { decideWorkspace } from '../../src/safety/decide-workspace.js';
import { prdFields } from '../../src/safety/fingerprints.js';
import { globToRegExp, matchesAny } from '../../src/safety/glob.js';
import { createRedactor, redactDeep } from '../../src/safety/redactor.js';
import { secretRuleOf } from '../../src/safety/secret-rules.js';

describe('globToRegExp', () => {
  it.each([
    ['.env*', '.env', true],
    ['.env*', 'config/.env.local', true],
    ['.env*', 'src/environment.ts', false],
    ['.github/workflows/**', '.github/workflows/ci.yml', true],
    ['.github/workflows/**', 'docs/.github/workflows/x.yml', false],
    ['docs/**', 'docs/a/b.md', true],
    ['src/*.js', 'src/a.js', true],
    ['src/*.js', 'src/a/b.js', false],
    ['**/secrets.json', 'a/b/secrets.json', true],
    ['migrations/', 'migrations/001.sql', true],
  ])('%s ~ %s → %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });

  it('names the glob that matched', () => {
    expect(matchesAny('.env', ['docs/**', '.env*'])).toBe('.env*');
    expect(matchesAny('src/a.ts', ['docs/**'])).toBeUndefined();
  });
});

describe('secretRuleOf: the rule, never the value', () => {
  it.each([
    ['const k = "AKIAZ7QW3XK2PL9MNB4T";', 'aws-access-key-id'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', 'private-key'],
    ['token: ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'github-token'],
    ['SLACK=xoxb-1234567890-abcdefghij', 'slack-token'],
    ['STRIPE_KEY = "sk_live_abcdefghijklmnopqrstuvwx"', 'stripe-key'],
    ['const api = "AIzaSyA1234567890abcdefghijklmnopqrstuv";', 'google-api-key'],
    ['API_TOKEN="q8Zr2Lw9Xk3Vb7Nm1Tp4"', 'high-entropy-secret'],
    ['password: "Tq9!vR2#mW7zLp4k"', 'high-entropy-secret'],
  ])('%s → %s', (line, rule) => {
    expect(secretRuleOf(line)).toBe(rule);
  });

  it.each([
    ['const API_TOKEN = process.env.API_TOKEN;'],
    ['password: "changeme-please"'],
    ['TOKEN_URL = "https://example.com/oauth/token"'],
    ['const keyboardLayout = "qwerty";'],
    ['SECRET_KEY=<your-secret-key-here>'],
  ])('not a secret: %s', (line) => {
    expect(secretRuleOf(line)).toBeUndefined();
  });
});

describe('createRedactor', () => {
  it('replaces credential-like environment values, and only those', () => {
    const { redact, longest } = createRedactor({ DEPLOY_TOKEN: 'tok_0123456789', HOME: '/root', SHORT_KEY: 'abc' });
    // At least the longest secret shape a stream may split (a key, a token), and the longest value.
    expect(longest).toBe(160);
    expect(redact('token=tok_0123456789 home=/root')).toBe('token=[redacted DEPLOY_TOKEN] home=/root');
    expect(redactDeep({ a: ['x tok_0123456789'], n: 1 }, redact)).toEqual({ a: ['x [redacted DEPLOY_TOKEN]'], n: 1 });
    expect(createRedactor({ HOME: '/root' }).redact('tok_0123456789')).toBe('tok_0123456789');
  });

  it('replaces every value of a known secret shape with its rule and a hash prefix, never the value', () => {
    const { redact } = createRedactor({});
    const key = 'AKIAZ7QW3XK2PL9MNB4T';
    const out = redact(`aws ${key} and again ${key}; github ghp_${'a'.repeat(36)}`);
    expect(out).not.toContain(key);
    expect(out).toMatch(
      /^aws \[redacted aws-access-key-id sha256:[0-9a-f]{8}\] and again \[redacted aws-access-key-id sha256:[0-9a-f]{8}\]; github \[redacted github-token sha256:[0-9a-f]{8}\]$/,
    );
    // The same value, the same mark: two mentions can be told to be one secret.
    expect(new Set(out.match(/sha256:[0-9a-f]{8}/g)).size).toBe(2);
  });
});

describe('pushBlockingEnv', () => {
  it('adds its git config after the entries the user already set', () => {
    const env = pushBlockingEnv(
      { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'me' },
      '/repo/.star/hooks',
    );
    expect(env.GIT_CONFIG_KEY_1).toBe('core.hooksPath');
    expect(env.GIT_CONFIG_VALUE_1).toBe('/repo/.star/hooks');
    expect(env.GIT_CONFIG_KEY_2).toBe(`url.${BLOCKED_SCHEME}https://.pushInsteadOf`);
    expect(Number(env.GIT_CONFIG_COUNT)).toBe(1 + 9);
    expect(env.GIT_CONFIG_KEY_0).toBeUndefined();
  });
});

describe('prdFields: what the agent may not change in prd.json', () => {
  it('leaves out passes and notes, keeps everything else by story id', () => {
    const fields = prdFields(
      JSON.stringify({ project: 'p', userStories: [{ id: 'A', title: 't', passes: false, notes: 'n' }] }),
    );
    expect([...fields.keys()]).toEqual(['project', 'userStories[A].id', 'userStories[A].title', 'userStories.length']);
  });
});

describe('decideWorkspace', () => {
  const git = (over: Partial<GitState> = {}): GitState => ({
    root: '/w/repo',
    branch: 'work',
    defaultBranch: 'main',
    defaultBranchSource: 'x',
    head: 'h',
    changes: [],
    ...over,
  });
  const options = (over: Partial<RunOptions> = {}) =>
    ({
      allowDirty: false,
      allowDefaultBranch: false,
      worktree: false,
      prdFile: '/w/repo/prd.json',
      ...over,
    }) as RunOptions;
  const decide = (o: Partial<RunOptions>, g: Partial<GitState>, target?: string, targetExists = false) =>
    decideWorkspace({ options: options(o), git: git(g), target, targetExists, worktreeExists: false });
  it.each<[string, Partial<RunOptions>, Partial<GitState>, string | undefined, boolean, string]>([
    ['on a work branch: stay', {}, {}, undefined, false, 'here:stay'],
    ['on the default branch: refuse', {}, { branch: 'main' }, undefined, false, 'refuse'],
    ['…unless allowed', { allowDefaultBranch: true }, { branch: 'main' }, undefined, false, 'here:stay'],
    ['dirty: refuse', {}, { changes: [{ code: ' M', path: 'a' }] }, undefined, false, 'refuse'],
    ['…unless allowed', { allowDirty: true }, { changes: [{ code: ' M', path: 'a' }] }, undefined, false, 'here:stay'],
    ['branchName exists: switch', {}, {}, 'ralph/x', true, 'here:switch'],
    ['branchName missing: create', {}, { branch: 'main' }, 'ralph/x', false, 'here:create'],
    ['branchName is the default branch: refuse', {}, {}, 'main', true, 'refuse'],
    ['detached HEAD without a branch: refuse', {}, { branch: undefined }, undefined, false, 'refuse'],
    [
      '--worktree: dirty and on main is fine',
      { worktree: true },
      { branch: 'main', changes: [{ code: '??', path: 'a' }] },
      undefined,
      false,
      'worktree:create',
    ],
  ])('%s', (_name, o, g, target, exists, expected) => {
    const plan = decide(o, g, target, exists);
    expect(plan.kind === 'refuse' ? 'refuse' : `${plan.kind}:${plan.action}`).toBe(expected);
  });

  it('a worktree gets a stable branch and folder beside the repository', () => {
    const plan = decide({ worktree: true }, {});
    expect(plan).toMatchObject({ kind: 'worktree', branch: 'star-loop/prd', dir: '/w/repo.star-loop/star-loop-prd' });
  });
});

describe('secret rules: fewer false alarms, never fewer real keys', () => {
  it('a UUID is an identifier, not a secret; test code and fixtures need a known token shape', () => {
    expect(secretRuleOf('const sessionKey = "123e4567-e89b-12d3-a456-426614174000";')).toBeUndefined();
    const made = 'api_token = "q8Zr2mX9vL4kP7sT1wY6"';
    expect(secretRuleOf(made, 'src/config.ts')).toBe('high-entropy-secret');
    expect(secretRuleOf(made, 'test/config.test.ts')).toBeUndefined();
    expect(secretRuleOf(made, 'tests/fixtures/settings.py')).toBeUndefined();
    expect(secretRuleOf('key = "AKIAZ7QW3XK2PL9MNB4T"', 'test/fixtures/aws.json')).toBe('aws-access-key-id');
  });
});
