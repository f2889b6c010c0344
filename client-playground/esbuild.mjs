// Bundles the playground page (client-playground/src) into the Python package, so the wheel
// and the .vsix (which copies server/tokenizer_lsp) carry it:
//   server/tokenizer_lsp/playground/static/playground.js
// The bundle is committed (a `pip install` from git has no npm step); tests/playground/
// test_page_bundle.py fails when it is older than its sources.
// Usage: node client-playground/esbuild.mjs [--outfile F]
import * as esbuild from 'esbuild';

const at = process.argv.indexOf('--outfile');
const outfile = at > 0 ? process.argv[at + 1] : 'server/tokenizer_lsp/playground/static/playground.js';

await esbuild.build({
  entryPoints: ['client-playground/src/main.ts'],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'chrome110',
  outfile,
  minify: false,  // readable in review; the page is small
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
