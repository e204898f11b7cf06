import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBundle } from '../../src/start/load-bundle.js';

const seen = globalThis as { starLoopBundleTest?: unknown };

async function bundle(text: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'star-loop-bundle-')), 'cli.cjs');
  await writeFile(file, text, 'utf8');
  return file;
}

describe('loadBundle: runs a CommonJS file as Node would', () => {
  it('an ASCII bundle (read as one-byte text) and one that is not (decoded as UTF-8) run alike', async () => {
    loadBundle(await bundle("globalThis.starLoopBundleTest = ['ascii', /\\u2714/.test('\\u2714 ok')];\n"));
    expect(seen.starLoopBundleTest).toEqual(['ascii', true]);
    loadBundle(await bundle("globalThis.starLoopBundleTest = ['wide: ✔ ünï', /✔/.test('✔ ok')];\n"));
    expect(seen.starLoopBundleTest).toEqual(['wide: ✔ ünï', true]);
  });

  it('gives the bundle require, module, __filename and __dirname, and its line numbers in stack traces', async () => {
    const file = await bundle(
      'globalThis.starLoopBundleTest = {\n' +
        "  sep: require('node:path').sep,\n" +
        '  file: __filename,\n' +
        '  dir: __dirname,\n' +
        "  exports: typeof module.exports === 'object',\n" +
        '  line: Number(/cli\\.cjs:(\\d+)/.exec(new Error().stack)[1]),\n' +
        '};\n',
    );
    loadBundle(file);
    expect(seen.starLoopBundleTest).toEqual({
      sep: '/',
      file,
      dir: join(file, '..'),
      exports: true,
      line: 6,
    });
  });
});
