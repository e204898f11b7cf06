import { describe, expect, it } from 'vitest';
import {
  parseFlaggedEntries,
  parseMergeTree,
  parseNameStatusZ,
  parseRefLines,
  parseRemotes,
  parseStatusZ,
} from '../../src/git/parse-git-output.js';

describe("git's machine-readable output", () => {
  it('status --porcelain=v1 -z: renames carry the old path in the next field; .star/ is left out', () => {
    const out = [' M src/a.ts', 'R  src/new name.ts', 'src/old.ts', '?? .star/state.json', '?? notes.md', ''].join(
      '\0',
    );
    expect(parseStatusZ(out)).toEqual([
      { code: ' M', path: 'src/a.ts' },
      { code: 'R ', path: 'src/new name.ts' },
      { code: '??', path: 'notes.md' },
    ]);
  });

  it('diff --name-status -z -M: both paths of a rename, in git order', () => {
    const out = ['M', 'a.ts', 'R087', 'old.ts', 'new.ts', 'D', 'gone.ts', ''].join('\0');
    expect(parseNameStatusZ(out)).toEqual([
      { status: 'M', path: 'a.ts' },
      { status: 'R', oldPath: 'old.ts', path: 'new.ts' },
      { status: 'D', path: 'gone.ts' },
    ]);
  });

  it('merge-tree --write-tree --name-only: the tree, conflicting files once each, and the messages', () => {
    const tree = 'a'.repeat(40);
    const out = `${tree}\nsrc/x.ts\nsrc/x.ts\nprd.json\n\nAuto-merging src/x.ts\nCONFLICT (content): Merge conflict in src/x.ts\n`;
    expect(parseMergeTree(out, true)).toEqual({
      tree,
      conflicts: ['src/x.ts', 'prd.json'],
      messages: 'Auto-merging src/x.ts\nCONFLICT (content): Merge conflict in src/x.ts',
    });
    expect(parseMergeTree(`${tree}\n`, false)).toEqual({ tree, conflicts: [], messages: '' });
  });

  it('for-each-ref lines and ls-remote lines become ref → commit', () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    expect(parseRefLines(`refs/remotes/origin/main ${a}\nrefs/remotes/origin/dev ${b}\n`, ' ')).toEqual(
      new Map([
        ['refs/remotes/origin/main', a],
        ['refs/remotes/origin/dev', b],
      ]),
    );
    expect(parseRefLines(`${a}\tHEAD\n${b}\trefs/heads/main\n`, '\t')).toEqual(
      new Map([
        ['HEAD', a],
        ['refs/heads/main', b],
      ]),
    );
  });

  it('remote -v: each remote once, with its fetch URL', () => {
    const out =
      'origin\tgit@example.com:a/b.git (fetch)\norigin\tgit@example.com:a/b.git (push)\nlocal\t../bare (fetch)\nlocal\t../bare (push)\n';
    expect(parseRemotes(out)).toEqual([
      { name: 'origin', url: 'git@example.com:a/b.git' },
      { name: 'local', url: '../bare' },
    ]);
  });

  it('ls-files -v -t -z: skip-worktree (S) and assume-unchanged (lowercase) entries, the flags an agent can hide behind', () => {
    const out = ['H a.txt', 'S hidden.txt', 'h unchanged.txt', 's both.txt', 'H z.txt', ''].join('\0');
    expect(parseFlaggedEntries(out)).toEqual({
      skipWorktree: ['hidden.txt', 'both.txt'],
      assumeUnchanged: ['unchanged.txt', 'both.txt'],
    });
  });
});
