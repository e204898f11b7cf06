import { describe, expect, it } from 'vitest';
import { commitText } from '../../src/git/long-running.js';

const parts = {
  tree: 't'.repeat(40),
  parents: ['p'.repeat(40)],
  name: 'Ada Lovelace',
  email: 'ada@example.org',
  message: 'star-loop: iteration 3: the work',
  seconds: 1700000000,
  offsetMinutes: 60,
};

describe('a commit text as commit-tree writes it (pure)', () => {
  it('has the tree, parents, one identity with the time zone, and the message on its own line', () => {
    expect(commitText(parts)).toBe(
      `tree ${'t'.repeat(40)}\nparent ${'p'.repeat(40)}\n` +
        'author Ada Lovelace <ada@example.org> 1700000000 +0100\n' +
        'committer Ada Lovelace <ada@example.org> 1700000000 +0100\n\nstar-loop: iteration 3: the work\n',
    );
    expect(commitText({ ...parts, parents: [], offsetMinutes: -330 })).toContain('1700000000 -0530\n');
    expect(commitText({ ...parts, offsetMinutes: 0 })).toContain('1700000000 +0000\n');
  });

  it('leaves to commit-tree what it would change: an identity with characters git strips or refuses, a message of more than one line', () => {
    for (const name of [' Ada', 'Ada.', 'A<da', 'Ada\n', '"Ada"', ''])
      expect(commitText({ ...parts, name }), JSON.stringify(name)).toBeUndefined();
    expect(commitText({ ...parts, email: 'ada@example.org.' })).toBeUndefined();
    expect(commitText({ ...parts, message: 'one\ntwo' })).toBeUndefined();
    expect(commitText({ ...parts, message: 'nul\0' })).toBeUndefined();
  });
});
