#!/usr/bin/env node
// `--version` answers before anything is loaded, so scripts that probe for star-loop pay nothing.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const cli = new URL('../dist/cli.js', import.meta.url);
  const { existsSync } = await import('node:fs');
  if (existsSync(cli)) await import(cli.href);
  else {
    process.stderr.write(
      'star-loop: dist/ is missing: this is a source checkout that was not built\n' +
        `  fix: run \`npm install && npm run build\` in ${new URL('..', import.meta.url).pathname}\n  (exit 1)\n`,
    );
    process.exitCode = 1;
  }
}
