// Builds dist/: star-loop and its dependencies bundled by esbuild into ESM files, with the bundled
// packages' licences in dist/THIRD-PARTY-LICENSES.txt (an install needs no dependency). The CLI is one
// entry (dist/cli.js); what only some commands need (the loop, the fleet, the report…) is split into
// chunks loaded when first imported. The node test reporter and the demo's agent are single files of their
// own: other processes load them by path. Type checking is `npm run typecheck` (tsc), not this.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

await rm('dist', { recursive: true, force: true });
const common = {
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  platform: 'node',
  // ESM builds first: jsonc-parser's "main" is a UMD build whose require() calls a bundle cannot follow.
  mainFields: ['module', 'main'],
  target: 'node20',
  // Whitespace and syntax only: stack traces from --debug keep star-loop's own names.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  // A few bundled dependencies are CommonJS and call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __starLoopRequire } from 'node:module';\nconst require = __starLoopRequire(import.meta.url);",
  },
  logLevel: 'warning',
};
const cli = await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts', 'demo/run-demo': 'src/demo/run-demo.ts' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
// Files other processes load on their own, copied elsewhere (the reporter goes beside a gate's evidence):
// each is one file that imports nothing of star-loop's.
const standalone = await build({
  ...common,
  entryPoints: {
    'evidence/node-test-reporter': 'src/evidence/node-test-reporter.ts',
    'demo/demo-agent': 'src/demo/demo-agent.ts',
  },
});
const inputs = [...Object.keys(cli.metafile.inputs), ...Object.keys(standalone.metafile.inputs)];

/** The packages bundled into dist/, with their licence texts: their notices go wherever their code goes. */
async function thirdPartyLicences(inputs) {
  const packages = new Set();
  for (const file of inputs) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) packages.add(match[1]);
  }
  const parts = [];
  for (const name of [...packages].sort()) {
    const dir = join('node_modules', name);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const licenceFile = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = licenceFile ? await readFile(join(dir, licenceFile), 'utf8') : `License: ${manifest.license}`;
    parts.push(`${name}@${manifest.version} (${manifest.license})\n\n${text.trim()}\n`);
  }
  return `Third-party software bundled into star-loop's dist/:\n\n${parts.join(`\n${'-'.repeat(72)}\n\n`)}`;
}

await writeFile('dist/THIRD-PARTY-LICENSES.txt', await thirdPartyLicences(inputs));
