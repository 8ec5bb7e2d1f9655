#!/usr/bin/env node
// `anchor` as npm links it. Committed (not built) so that `npm ci` on a fresh clone, which links bins before
// anything is built, has a file to link; it runs the built CLI and says what to do when it is not built yet.
const main = new URL('../dist/main.js', import.meta.url);
try {
  await import(main.href);
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(main.pathname)) throw error;
  process.stderr.write('anchor: the CLI is not built yet: run `npm run build` (or `npm start`) first\n');
  process.exitCode = 1;
}
