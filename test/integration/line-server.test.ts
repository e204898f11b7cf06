import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startLineServer } from '../../src/proc/line-server.js';

const alive = (mark: string) => spawnSync('pgrep', ['-f', mark]).status === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a long-running answer server (real child processes)', () => {
  it('answers in order, and an idle wait longer than the deadline is no failure', async () => {
    const server = startLineServer('cat', [], { cwd: tmpdir(), deadlineMs: 300 });
    try {
      expect(await Promise.all([server.ask('one'), server.ask('two')])).toEqual(['one', 'two']);
      // Nothing is awaited while idle: the deadline's clock is not running.
      await sleep(600);
      expect(await server.ask('three')).toBe('three');
    } finally {
      server.close();
    }
  });

  it('a child that never answers fails the request at the deadline and is killed; later requests fail at once', async () => {
    const mark = `${Math.floor(Math.random() * 1e6)}.25`;
    const server = startLineServer('sleep', [mark], { cwd: tmpdir(), deadlineMs: 400 });
    const started = Date.now();
    await expect(Promise.all([server.ask('a'), server.ask('b')])).rejects.toThrow(/no answer in 400 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (let i = 0; i < 50 && alive(mark); i++) await sleep(20);
    expect(alive(mark)).toBe(false);
    await expect(server.ask('c')).rejects.toThrow(/no answer/);
  });
});
