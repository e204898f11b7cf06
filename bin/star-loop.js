#!/usr/bin/env node
// `--version` answers before anything is loaded, so scripts that probe for star-loop pay nothing.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  await import('../dist/cli.js');
}
