import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, open, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/proc/run-process.js';
import { processAlive } from '../helpers/process-alive.js';

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'star-loop-proc-'));
  return { dir, log: join(dir, 'out.log') };
}

describe('runProcess (the only owner of child processes)', () => {
  it('feeds stdin, streams stdout and stderr to the log, and hands stdout lines to the parser', async () => {
    const { dir, log } = await setup();
    const lines: string[] = [];
    const result = await runProcess({
      command: 'sh',
      args: ['-c', 'cat; echo err >&2; printf "last"; exit 3'],
      cwd: dir,
      env: { PATH: process.env.PATH },
      input: 'one\ntwo\n',
      logFile: log,
      onStdoutLine: (l) => lines.push(l),
    });
    expect(result.exitCode).toBe(3);
    expect(lines).toEqual(['one', 'two', 'last']);
    expect(await readFile(log, 'utf8')).toContain('err');
    expect(result.tail).toContain('last');
  });

  it('keeps every byte of a fast process whose onSpawn is slow (the output is read from the start)', async () => {
    const { dir, log } = await setup();
    const lines: string[] = [];
    const result = await runProcess({
      command: 'sh',
      args: ['-c', 'echo first; echo second'],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
      onStdoutLine: (l) => lines.push(l),
      onSpawn: () => new Promise((r) => setTimeout(r, 1500)),
    });
    expect(result.exitCode).toBe(0);
    expect(lines).toEqual(['first', 'second']);
    expect(await readFile(log, 'utf8')).toBe('first\nsecond\n');
  });

  it('PWD names the folder the process runs in, not the one star-loop was started from', async () => {
    const { dir, log } = await setup();
    const lines: string[] = [];
    await runProcess({
      command: 'node',
      args: ['-e', 'console.log(process.env.PWD)'],
      cwd: dir,
      env: { PATH: process.env.PATH, PWD: '/somewhere/else' },
      logFile: log,
      onStdoutLine: (l) => lines.push(l),
    });
    expect(lines).toEqual([dir]);
  });

  it('on timeout ends the whole process group, grandchildren included', async () => {
    const { dir, log } = await setup();
    const pidFile = join(dir, 'grandchild.pid');
    const result = await runProcess({
      command: 'sh',
      args: ['-c', `sleep 300 & echo $! > ${pidFile}; wait`],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
      timeoutMs: 500,
      graceMs: 500,
    });
    expect(result.timedOut).toBe(true);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 200));
    expect(processAlive(grandchild)).toBe(false);
  });

  it('ends what the main process left running in its group when it exits', async () => {
    const { dir, log } = await setup();
    const pidFile = join(dir, 'bg.pid');
    const started = Date.now();
    const result = await runProcess({
      command: 'sh',
      args: ['-c', `sleep 300 & echo $! > ${pidFile}; exit 0`],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
      graceMs: 500,
    });
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(processAlive(Number(await readFile(pidFile, 'utf8')))).toBe(false);
  });

  it('an abort signal ends the process; a missing command is a spawn error, not a crash', async () => {
    const { dir, log } = await setup();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = await runProcess({
      command: 'sleep',
      args: ['30'],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
      signal: controller.signal,
    });
    expect(aborted.aborted).toBe(true);
    const missing = await runProcess({
      command: 'definitely-not-a-command-xyz',
      args: [],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
    });
    expect(missing.spawnError).toMatch(/ENOENT/);
  });

  it('a process that escaped the group (setsid) and holds stdout does not hold the run: reading stops soon after exit', async () => {
    const { dir, log } = await setup();
    const tag = `star-loop-held-${Math.random().toString(36).slice(2)}`;
    const started = Date.now();
    const result = await runProcess({
      command: 'sh',
      // The main shell waits until the holder is in its own session: ending the group any earlier would end
      // the holder with it, and the case under test would not happen.
      args: [
        '-c',
        `setsid sh -c 'echo from-the-holder; touch left; exec sh -c "sleep 30; true" ${tag}' & ` +
          'while [ ! -e left ]; do sleep 0.01; done; echo main-done',
      ],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
    });
    const waited = Date.now() - started;
    try {
      expect(result.exitCode).toBe(0);
      expect(result.logError).toBeUndefined(); // reading stopped on purpose: not a failure of the log
      expect(await readFile(log, 'utf8')).toContain('main-done');
      expect(await readFile(log, 'utf8')).toContain('from-the-holder');
      // The holder sleeps 30 s with the pipe open; star-loop stops reading about 2 s after the exit.
      expect(waited).toBeLessThan(15_000);
    } finally {
      spawnSync('pkill', ['-f', tag]);
    }
  });

  it('slow storage under the log (a FIFO read slowly) keeps the end of the output given before the exit', async () => {
    // CI, a loaded disk: star-loop's own writing lagged, the last output still sat in the pipe 2 s after the
    // agent exited, and was taken for a process holding the pipe — the log lost its end ('done talking').
    const { dir, log } = await setup();
    expect(spawnSync('mkfifo', [log]).status).toBe(0);
    const read: Buffer[] = [];
    const reader = (async () => {
      const fifo = await open(log, 'r');
      const chunk = Buffer.alloc(16 * 1024);
      for (;;) {
        const { bytesRead } = await fifo.read(chunk, 0, chunk.length);
        if (bytesRead === 0) break;
        read.push(Buffer.from(chunk.subarray(0, bytesRead)));
        await new Promise((resolve) => setTimeout(resolve, 500)); // 32 KB/s
      }
      await fifo.close();
    })();
    const result = await runProcess({
      command: 'sh',
      args: ['-c', 'head -c 262144 /dev/zero | tr "\\0" x; echo; echo the-end'],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
    });
    await reader;
    expect(result.exitCode).toBe(0);
    const text = Buffer.concat(read).toString('utf8');
    expect(text.length).toBe(262144 + 1 + 'the-end\n'.length);
    expect(text.endsWith('\nthe-end\n')).toBe(true);
  }, 60_000);

  it('a failure recording the process (onSpawn: the disk full) ends it and is passed on, nothing left running', async () => {
    const { dir, log } = await setup();
    let pid = 0;
    await expect(
      runProcess({
        command: 'sh',
        args: ['-c', 'sleep 30'],
        cwd: dir,
        env: { PATH: process.env.PATH },
        logFile: log,
        timeoutMs: 600_000,
        graceMs: 500,
        onSpawn: async (p) => {
          pid = p;
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        },
      }),
    ).rejects.toThrow('ENOSPC');
    expect(processAlive(pid)).toBe(false);
  });

  it('keeps the first and last halves of a log past its cap, the cut marked, and no ring file left', async () => {
    const { dir, log } = await setup();
    const result = await runProcess({
      command: 'sh',
      args: ['-c', 'i=0; while [ $i -lt 400 ]; do printf "line %04d\\n" $i; i=$((i+1)); done'],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
      maxLogBytes: 1000,
    });
    expect(result.exitCode).toBe(0);
    const text = await readFile(log, 'utf8');
    expect(text.startsWith('line 0000\nline 0001\n')).toBe(true);
    expect(text.endsWith('line 0398\nline 0399\n')).toBe(true);
    expect(text).toMatch(
      /\n… \[0\.0 MB cut here: star-loop keeps the first and last 0\.0 MB of each process's output\]\n/,
    );
    expect(text.length).toBeLessThan(1200);
    expect(readdirSync(dir)).toEqual(['out.log']);
  });

  it('stdout and stderr past the cap at once: the held end has every line whole, each stream in order', async () => {
    // Each stream's writes go round the same ring file; two at once must not land on the same place.
    const { dir, log } = await setup();
    const result = await runProcess({
      command: 'sh',
      args: [
        '-c',
        'i=0; while [ $i -lt 3000 ]; do printf "out %04d\\n" $i; printf "err %04d\\n" $i >&2; i=$((i+1)); done',
      ],
      cwd: dir,
      env: { PATH: process.env.PATH },
      logFile: log,
      maxLogBytes: 8000,
    });
    expect(result.exitCode).toBe(0);
    const text = await readFile(log, 'utf8');
    const [, held = ''] = text.split(/cut here: [^\n]*\n/);
    const lines = held.split('\n').slice(1, -1); // the first may begin mid-line; the text ends with one
    expect(lines.length).toBeGreaterThan(400);
    for (const line of lines) expect(line).toMatch(/^(out|err) \d{4}$/);
    // Each stream's lines in order, none lost or doubled; the one that finished last ends the log.
    for (const stream of ['out', 'err']) {
      const numbers = lines.filter((l) => l.startsWith(stream)).map((l) => Number(l.slice(4)));
      expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] ?? 0) + i));
    }
    expect(lines.at(-1)).toMatch(/^(out|err) 2999$/);
  });
});
