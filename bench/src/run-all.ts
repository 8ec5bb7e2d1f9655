/**
 * `npm run bench`: runs every `*.bench.js` in this folder's build output, each in its own process so one
 * benchmark's heap, sockets and child services never skew the next. Pass names to run a subset:
 * `npm run bench -- store crypto`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

let failures = 0;
for (const file of benches) {
  console.log(`\n=== ${file.replace(/\.bench\.js$/, '')} ===`);
  const result = spawnSync(process.execPath, ['--expose-gc', `${dir}${file}`], { stdio: 'inherit' });
  if (result.status !== 0) {
    failures++;
    console.log(`(benchmark ${file} exited with ${result.status ?? result.signal})`);
  }
}
if (benches.length === 0) console.log('no benchmarks matched');
process.exit(failures > 0 ? 1 : 0);
