/**
 * The JS reference workload (`jsReferenceMicros` in machine.ts), run in a process of its own so that its
 * heap neither helps nor hurts the orchestrator's. Per operation: parse a 1 KB Sidetree-shaped request,
 * hash it, build and serialise an answer, and keep the answer in a rotating window of 200,000, beside
 * 300,000 small objects read at random: the node's kind of JavaScript (short-lived objects, strings,
 * pointer-chasing over a large live heap) rather than a loop that fits in a core's first-level cache.
 * Prints the CPU microseconds per operation, every thread of the process (GC helpers included).
 */
import { hash } from 'node:crypto';

const OPERATIONS = Number(process.argv[2] ?? 200_000);
const key = (n: number): string => Buffer.alloc(32, n).toString('base64url');
const request = JSON.stringify({
  type: 'create',
  suffixData: { deltaHash: key(1), recoveryCommitment: key(2) },
  delta: {
    updateCommitment: key(3),
    patches: [
      {
        action: 'replace',
        document: {
          publicKeys: [
            {
              id: 'key-1',
              type: 'JsonWebKey2020',
              publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: key(4) },
              purposes: ['authentication', 'assertionMethod'],
            },
          ],
          services: [
            { id: 'domain', type: 'LinkedDomains', serviceEndpoint: `https://example.com/${'x'.repeat(400)}` },
          ],
        },
      },
    ],
  },
});

interface Request {
  delta: { patches: Array<{ document: unknown }> };
}

const window: string[] = new Array<string>(200_000).fill('');
const ballast = Array.from({ length: 300_000 }, (_, i) => ({ n: i, text: String(i), pair: [i, i + 1] }));
let checksum = 0;
const started = process.cpuUsage();
for (let i = 0; i < OPERATIONS; i++) {
  const parsed = JSON.parse(request) as Request;
  const answer = JSON.stringify({
    didDocument: parsed.delta.patches[0]?.document,
    metadata: { sequence: i, hash: hash('sha256', `${request}${i}`, 'base64url') },
  });
  window[(i * 7_919) % window.length] = answer;
  checksum += answer.length + (ballast[(i * 104_729) % ballast.length]?.n ?? 0);
}
const used = process.cpuUsage(started);
if (checksum <= 0) throw new Error('the reference workload computed nothing');
console.log(((used.user + used.system) / OPERATIONS).toFixed(3));
