/**
 * How much CPU the machine has to give right now, printed beside the figures it explains: these benches run
 * on 2 shared cores, where the same build has measured a create p99 of 179 ms and of 1.6 s an hour apart.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { loadavg } from 'node:os';

/** Ed25519 verifications one core completes in a second (the loop runs for `ms`). */
export function ed25519VerifiesPerSecond(ms = 1_000): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const message = Buffer.alloc(256, 7);
  const signature = sign(null, message, privateKey);
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < ms) {
    if (!verify(null, message, publicKey, signature)) throw new Error('the Ed25519 reference signature did not verify');
    count++;
  }
  return (count * 1_000) / (performance.now() - started);
}

/** The one-minute load average. */
export const loadAverage = (): number => loadavg()[0] ?? 0;
