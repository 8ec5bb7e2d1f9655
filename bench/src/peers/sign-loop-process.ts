/**
 * The machine's Ed25519 signing limit, one core's share: node:crypto signing the kms pair's 32-byte message in
 * a loop for the given milliseconds. `kms.ts` runs one of these per core at once.
 *
 *   node sign-loop-process.js <milliseconds>
 *
 * Prints the signatures per second.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const ms = Number(process.argv[2] ?? 5_000);
const { privateKey } = generateKeyPairSync('ed25519');
const message = randomBytes(32);
for (let i = 0; i < 2_000; i++) sign(null, message, privateKey);
const started = performance.now();
let count = 0;
while (performance.now() - started < ms) {
  for (let i = 0; i < 100; i++) sign(null, message, privateKey);
  count += 100;
}
console.log(((count * 1_000) / (performance.now() - started)).toFixed(1));
