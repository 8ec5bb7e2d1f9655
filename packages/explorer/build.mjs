// Builds the explorer to dist/: one minified ES module bundle (esbuild), the page and its style sheet.
// The page loads nothing inline and nothing from elsewhere, so the node's strict Content-Security-Policy holds.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
// The verifier is a bundle of its own, imported by the page on the first "Verify" (jsonld.js is most of it).
const common = { bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, sourcemap: true };
const { metafile } = await build({
  ...common,
  entryPoints: ['src/verify/verifier.ts'],
  outfile: 'dist/verifier.js',
  metafile: true,
  logLevel: 'warning',
});
writeFileSync('dist/verifier.meta.json', JSON.stringify(metafile));
// The federation graph likewise (cytoscape), imported by the federation page once it has read the federation.
await build({ ...common, entryPoints: ['src/federation-graph.ts'], outfile: 'dist/graph.js', logLevel: 'warning' });
await build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outfile: 'dist/explorer.js',
  logLevel: 'warning',
});
copyFileSync('src/index.html', 'dist/index.html');
// One style sheet: uPlot's own rules (its charts need them) in front of the explorer's, so the page's
// `style-src 'self'` admits both from one file.
const uplotCss = readFileSync(createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css'), 'utf8');
writeFileSync('dist/explorer.css', `${uplotCss}\n${readFileSync('src/explorer.css', 'utf8')}`);
