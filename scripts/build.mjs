// Builds dist/: star-loop and its dependencies bundled by esbuild, with the bundled packages' licences in
// dist/THIRD-PARTY-LICENSES.txt (an install needs no dependency). The CLI is one CommonJS file (dist/cli.cjs)
// that bin/star-loop.js runs through V8's code cache (src/start/load-bundle.ts): Node 20 keeps no compiled
// code between runs for ES modules, and compiling was a third of a `--dry-run`. What only some commands need
// (the loop, the fleet, the report…) is still evaluated only when first imported: esbuild turns a dynamic
// import() inside one file into a module initialised on first use. The loader, the node test reporter and
// the demo's programs are ES module files of their own: other processes load them by path. Type checking is
// `npm run typecheck` (tsc), not this.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

await rm('dist', { recursive: true, force: true });
const common = {
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  // ESM builds first: jsonc-parser's "main" is a UMD build whose require() calls a bundle cannot follow.
  mainFields: ['module', 'main'],
  target: 'node20',
  // Whitespace and syntax only: stack traces from --debug keep star-loop's own names.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};
const cli = await build({
  ...common,
  entryPoints: { cli: 'src/cli.ts' },
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // The one use of import.meta (finding star-loop's own folder) reads the bundle's file name instead.
  define: { 'import.meta.url': 'import_meta_url' },
  banner: { js: "const import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
});
// Files loaded on their own, copied elsewhere (the reporter goes beside a gate's evidence) or run as programs.
const standalone = await build({
  ...common,
  entryPoints: {
    start: 'src/start/load-bundle.ts',
    'evidence/node-test-reporter': 'src/evidence/node-test-reporter.ts',
    'demo/demo-agent': 'src/demo/demo-agent.ts',
    'demo/run-demo': 'src/demo/run-demo.ts',
  },
  format: 'esm',
  // A few bundled dependencies are CommonJS and call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __starLoopRequire } from 'node:module';\nconst require = __starLoopRequire(import.meta.url);",
  },
});
// The CLI bundle must be ASCII: read as one-byte text it loads in a fraction of the time UTF-8 decoding takes
// (src/start/load-bundle.ts). esbuild escapes strings and templates; a regular expression it leaves as written.
const bundle = await readFile('dist/cli.cjs', 'utf8');
const wide = /[\u0080-\uffff]/.exec(bundle);
if (wide) {
  const line = bundle.slice(0, wide.index).split('\n').length;
  const around = bundle.slice(Math.max(0, wide.index - 60), wide.index + 20);
  throw new Error(`dist/cli.cjs line ${line} is not ASCII (…${around}…): write the character as a \\u escape in src/`);
}
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
