/**
 * `npm run bench`: runs every `*.bench.js` in this folder's build output, each in its own process so one
 * benchmark's heap, sockets and child services never skew the next. Pass names to run a subset:
 * `npm run bench -- store crypto`; options after the names reach each benchmark (`npm run bench -- soak --minutes 3`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
// Names come first; from the first `--option` on, the arguments go to every benchmark run (`soak --minutes 3`).
const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith('--'));
const wanted = firstOption < 0 ? args : args.slice(0, firstOption);
const options = firstOption < 0 ? [] : args.slice(firstOption);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

let failures = 0;
for (const file of benches) {
  console.log(`\n=== ${file.replace(/\.bench\.js$/, '')} ===`);
  const result = spawnSync(process.execPath, ['--expose-gc', `${dir}${file}`, ...options], { stdio: 'inherit' });
  if (result.status !== 0) {
    failures++;
    console.log(`(benchmark ${file} exited with ${result.status ?? result.signal})`);
  }
}
if (benches.length === 0) console.log('no benchmarks matched');
process.exit(failures > 0 ? 1 : 0);
