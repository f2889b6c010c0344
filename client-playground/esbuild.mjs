// Bundles the playground page (client-playground/src) into the Python package, so the wheel
// and the bundled .vsix (which copies server/tokenizer_lsp) carry it:
//   server/tokenizer_lsp/playground/static/playground.js
// --dist: also dist/playground.js and dist/playground.css, the VS Code webview's copy (the
// .vsix takes dist/, .vscodeignore).
// The package's bundle is committed (a `pip install` from git has no npm step);
// tests/playground/test_page_bundle.py fails when it is older than its sources.
// Usage: node client-playground/esbuild.mjs [--outfile F] [--dist]
import * as esbuild from 'esbuild';
import fs from 'node:fs';

const STATIC = 'server/tokenizer_lsp/playground/static';
const at = process.argv.indexOf('--outfile');
const outfile = at > 0 ? process.argv[at + 1] : `${STATIC}/playground.js`;
const options = {
  entryPoints: ['client-playground/src/main.ts'],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'chrome110',
  minify: false, // readable in review; the page is small
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};

await esbuild.build({ ...options, outfile });
if (process.argv.includes('--dist')) {
  fs.mkdirSync('dist', { recursive: true });
  fs.copyFileSync(outfile, 'dist/playground.js');
  fs.copyFileSync(`${STATIC}/playground.css`, 'dist/playground.css');
}
