/**
 * Prepares did:plc genesis operations for the did:plc pair of `npm run bench -- peers`, before any load starts
 * (signing is the client's cost, not the directory's, as our node's creates are prepared by
 * bench/src/node/create-requests.ts): each operation is a distinct DID (its own handle) signed by a secp256k1
 * rotation key with @did-plc/lib, the way a PDS creates an account.
 *
 *   node plc-ops.mjs <count> <out file>
 *
 * Writes one request a line, `{"method":"POST","path":"/did:plc:...","body":"<operation JSON>"}`, the format of
 * bench/src/peers/request-load-process.ts.
 */
import { createWriteStream } from 'node:fs';
import { Secp256k1Keypair } from '@atproto/crypto';
import * as plc from '@did-plc/lib';

const [countText, out] = process.argv.slice(2);
const count = Number(countText);
if (!Number.isInteger(count) || count <= 0 || !out) throw new Error('usage: plc-ops.mjs <count> <out file>');

const rotationKey = await Secp256k1Keypair.create();
const signingKey = await Secp256k1Keypair.create();
const file = createWriteStream(out);
const run = Math.random().toString(36).slice(2, 8);
for (let i = 0; i < count; i++) {
  const { op, did } = await plc.createOp({
    signingKey: signingKey.did(),
    rotationKeys: [rotationKey.did()],
    handle: `user${i}-${run}.bench.example`,
    pds: 'https://pds.bench.example',
    signer: rotationKey,
  });
  const line = `${JSON.stringify({ method: 'POST', path: `/${did}`, body: JSON.stringify(op) })}\n`;
  if (!file.write(line)) await new Promise((resolve) => file.once('drain', resolve));
}
await new Promise((resolve, reject) => file.end((error) => (error ? reject(error) : resolve())));
