import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * star-loop installed like a tool: packed, then installed from the tarball into an empty prefix with no dev
 * dependencies and no network, as a user would. `npm test` built dist/ before the tests; packing here skips
 * the "prepack" build so the dist/ other tests are running from is not rebuilt under them.
 */
describe('install from a packed tarball', () => {
  it('installs with no dependency and no script of its own, then --version, the demo and npx work', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'star-loop-install-'));
    const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_cache: join(dir, 'cache') };
    const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      env: npmEnv,
    });
    const [pack] = JSON.parse(packed.stdout) as Array<{ filename: string; files: { path: string }[] }>;
    const filename = pack?.filename ?? '';
    const paths = (pack?.files ?? []).map((f) => f.path);
    expect(paths).toContain('dist/cli.cjs');
    expect(paths).toContain('dist/start.js');
    expect(paths).toContain('dist/THIRD-PARTY-LICENSES.txt');
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false);
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest.scripts)).not.toContain('prepare');
    expect(Object.keys(manifest.scripts)).not.toContain('postinstall');

    const prefix = join(dir, 'prefix');
    const tarball = join(dir, filename);
    const install = await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--omit=dev', '--offline', '--no-audit', '--no-fund', tarball],
      { env: npmEnv, all: true },
    );
    expect(install.exitCode).toBe(0);
    // Nothing for npm's install-scripts policy to hold back, and no dependency to fetch.
    expect(install.all).not.toContain('install-scripts');
    const installed = join(prefix, 'lib', 'node_modules', 'star-loop');
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);

    const bin = join(prefix, 'bin', 'star-loop');
    expect((await execa(bin, ['--version'])).stdout).toBe(manifest.version);
    expect((await execa(bin, ['schema', 'prd'])).stdout).toContain('"userStories"');

    // The whole loop from the installed copy: recon, gates, a rejected claim, the verifier, the report.
    const demo = await execa(process.execPath, [join(installed, 'dist', 'demo', 'run-demo.js')], {
      reject: false,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(demo.exitCode).toBe(0);
    expect(demo.stdout).toContain('✘ rejected: gate "test" (`npm test`) failed with exit code 1');
    expect(demo.stdout).toContain('star-loop: complete — all work complete and verified (exit 0)');

    const npx = await execa('npx', ['--yes', '--offline', `--package=${tarball}`, 'star-loop', '--version'], {
      cwd: dir,
      env: npmEnv,
    });
    expect(npx.stdout.trim()).toBe(manifest.version);
  }, 180_000);
  it('a checkout that was not built says so and how to build, instead of a module-not-found trace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'star-loop-unbuilt-'));
    await mkdir(join(dir, 'bin'));
    await copyFile(join(ROOT, 'bin', 'star-loop.js'), join(dir, 'bin', 'star-loop.js'));
    await copyFile(join(ROOT, 'package.json'), join(dir, 'package.json'));
    const result = await execa(process.execPath, [join(dir, 'bin', 'star-loop.js'), 'run', '--dry-run'], {
      reject: false,
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('dist/ is missing: this is a source checkout that was not built');
    expect(result.stderr).toContain('npm install && npm run build');
    expect(result.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  });
});
