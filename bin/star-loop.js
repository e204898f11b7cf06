#!/usr/bin/env node
// `--version` answers before anything is loaded, so scripts that probe for star-loop pay nothing.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  // The CLI is one bundle, run through V8's code cache (src/start/load-bundle.ts).
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const start = new URL('../dist/start.js', import.meta.url);
  const cli = new URL('../dist/cli.cjs', import.meta.url);
  if (existsSync(start) && existsSync(cli)) (await import(start.href)).loadBundle(fileURLToPath(cli));
  else {
    process.stderr.write(
      'star-loop: dist/ is missing: this is a source checkout that was not built\n' +
        `  fix: run \`npm install && npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))}\n  (exit 1)\n`,
    );
    process.exitCode = 1;
  }
}
