/**
 * HTTP signatures, Ed25519, single process: signing (Date + SHA-256 Digest + signing string + signature +
 * header) and verifying with a cached key (header parsing, Date window, Digest over the body, signing string,
 * signature check). A later target needs >= 1,000 signed deliveries/s end to end, so both sides must be cheap.
 */
import { KeyPair } from '@anchor/common/crypto';
import {
  createRequestSigner,
  createSignatureAuthenticator,
  servicePublicKeyDocument,
  type FetchJson,
} from '@anchor/common/httpsig';
import { report } from './lib/report.js';

const SERVICE = 'https://node1.example.com/services/node';
const KEY_ID = `${SERVICE}/keys/main-key`;
const ROUNDS = 3;
const N = 5_000;

const key = KeyPair.generate('Ed25519');
const keyDocument = servicePublicKeyDocument({ serviceId: SERVICE, key });
const actor = { id: SERVICE, type: 'Service', publicKey: keyDocument };
// Documents are served from memory: after the first request the key and actor come from the cache anyway.
const fetchJson: FetchJson = async (url) => (url === KEY_ID ? keyDocument : actor);

const signer = createRequestSigner({ keyId: KEY_ID, key });
const authenticate = createSignatureAuthenticator({ fetchJson });
// A typical anchor-event delivery is a few kilobytes of JSON.
const body = Buffer.from(JSON.stringify({ type: 'Create', actor: SERVICE, object: { content: 'x'.repeat(2000) } }));
const url = 'https://node2.example.com/services/node/inbox';

async function signAll(withBody: boolean): Promise<Record<string, string>[]> {
  const out: Record<string, string>[] = [];
  for (let i = 0; i < N; i++) {
    out.push(await signer(withBody ? { method: 'POST', url, headers: {}, body } : { method: 'GET', url, headers: {} }));
  }
  return out;
}

async function verifyAll(signed: Record<string, string>[], withBody: boolean): Promise<void> {
  for (const headers of signed) {
    const lower: Record<string, string> = { 'content-type': 'application/json' };
    for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
    const result = await authenticate(
      withBody
        ? {
            method: 'POST',
            originalUrl: '/services/node/inbox',
            headers: { ...lower, 'content-length': String(body.length) },
            rawBody: body,
          }
        : { method: 'GET', originalUrl: '/services/node/inbox', headers: lower },
    );
    if (result?.actor !== SERVICE) throw new Error('verification failed');
  }
}

async function measure(run: () => Promise<unknown>): Promise<number> {
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    await run();
    rates.push(N / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return rates.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] as number;
}

async function main(): Promise<void> {
  await verifyAll(await signAll(true), true); // warm-up, and fills the key and actor caches
  for (const withBody of [true, false]) {
    const label = withBody ? `POST ${body.length} B body` : 'GET';
    let signed: Record<string, string>[] = [];
    report(
      'httpsig',
      `Ed25519 sign, ${label}`,
      await measure(async () => (signed = await signAll(withBody))),
      'sign/s',
    );
    report(
      'httpsig',
      `Ed25519 verify (cached key), ${label}`,
      await measure(() => verifyAll(signed, withBody)),
      'verify/s',
    );
  }
}

await main();
