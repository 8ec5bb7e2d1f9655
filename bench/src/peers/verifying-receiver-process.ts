/**
 * The receiver of the Fedify pair, the same for both senders: one actor whose inbox verifies every delivery's
 * draft-cavage HTTP signature before it answers 202, and refuses (401) what does not verify. Per delivery: the
 * `Signature` header parsed, `(request-target)`, `date` and `digest` required to be signed, the `Digest`
 * checked against the body, the signer's key fetched from its keyId once and cached (as Fedify and our node
 * cache keys), the signature verified with node:crypto, and the key's owner required to be the activity's actor.
 *
 * Neither sender's own inbox can be the receiver of the other's deliveries: Fedify 1.5 signs with RSA keys, which
 * our verifier does not take, and it cannot read our node's key document (Orb's `BEGIN Ed25519` PEM
 * form) nor parse an activity whose object is an AnchorEvent (400 "Invalid activity"), the only object our
 * outbox lets a Like carry. So the receiver reads keys in either PEM form (SPKI through node:crypto, the
 * original's through @anchor/common/httpsig) and takes any JSON activity.
 *
 *   node verifying-receiver-process.js <port>
 *
 * `GET /users/receiver` is the actor (id, inbox); `GET /count` the deliveries verified so far, `GET /refused`
 * those refused, `GET /cpu` this process's CPU µs (all threads).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import {
  buildSigningString,
  parsePublicKeyDocument,
  parsePublicKeyPem,
  parseSignatureHeader,
  verifyDigestHeader,
} from '@anchor/common/httpsig';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: verifying-receiver-process.js <port>');
const origin = `http://127.0.0.1:${port}`;
const actor = {
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${origin}/users/receiver`,
  type: 'Service',
  inbox: `${origin}/users/receiver/inbox`,
};

interface Key {
  owner: string;
  keyObject: KeyObject;
  /** node:crypto's digest for this key: RSA signs SHA-256, Ed25519 none. */
  hash: string | null;
}
const keys = new Map<string, Promise<Key>>();

async function fetchKey(keyId: string): Promise<Key> {
  const response = await fetch(keyId.split('#')[0] as string, {
    headers: { accept: 'application/activity+json, application/ld+json, application/json' },
  });
  if (!response.ok) throw new Error(`GET ${keyId}: ${response.status}`);
  const document = parsePublicKeyDocument(await response.json(), keyId);
  if (/-----BEGIN PUBLIC KEY-----/.test(document.publicKeyPem)) {
    const keyObject = createPublicKey(document.publicKeyPem);
    return { owner: document.owner, keyObject, hash: keyObject.asymmetricKeyType === 'rsa' ? 'sha256' : null };
  }
  const parsed = parsePublicKeyPem(document.publicKeyPem);
  if (parsed.type !== 'Ed25519') throw new Error(`a ${parsed.type} key: this receiver verifies Ed25519 and RSA`);
  return { owner: document.owner, keyObject: parsed.keyObject, hash: null };
}

function keyFor(keyId: string): Promise<Key> {
  let key = keys.get(keyId);
  if (!key) {
    key = fetchKey(keyId);
    keys.set(keyId, key);
    key.catch(() => keys.delete(keyId));
  }
  return key;
}

const header = (req: IncomingMessage) => (name: string) => {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** Throws with the reason when the delivery does not verify. */
async function verified(req: IncomingMessage, body: Buffer): Promise<void> {
  const signature = header(req)('signature');
  if (signature === undefined) throw new Error('unsigned');
  const params = parseSignatureHeader(signature);
  for (const required of ['(request-target)', 'date', 'digest'])
    if (!params.headers.includes(required)) throw new Error(`${required} is not signed`);
  verifyDigestHeader(header(req)('digest') ?? '', body);
  const signingString = buildSigningString(params.headers, {
    method: req.method ?? 'POST',
    target: req.url ?? '/',
    header: header(req),
  });
  const key = await keyFor(params.keyId);
  if (!verify(key.hash, Buffer.from(signingString, 'utf8'), key.keyObject, params.signature))
    throw new Error('the signature does not verify');
  const activity = JSON.parse(body.toString('utf8')) as { actor?: unknown };
  const activityActor = typeof activity.actor === 'string' ? activity.actor : (activity.actor as { id?: unknown })?.id;
  if (activityActor !== key.owner) throw new Error(`signed by ${key.owner}, not by the actor ${String(activityActor)}`);
}

let count = 0;
let refused = 0;
createServer((req, res) => {
  if (req.method === 'GET') {
    const { user, system } = process.cpuUsage();
    const answers: Record<string, () => string> = {
      '/users/receiver': () => JSON.stringify(actor),
      '/count': () => String(count),
      '/refused': () => String(refused),
      '/cpu': () => String(user + system),
    };
    const answer = answers[req.url ?? ''];
    if (!answer) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/activity+json' }).end(answer());
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    verified(req, Buffer.concat(chunks)).then(
      () => {
        count++;
        res.writeHead(202).end();
      },
      (error: Error) => {
        refused++;
        res.writeHead(401, { 'content-type': 'text/plain' }).end(error.message);
      },
    );
  });
}).listen(port, '127.0.0.1', () => console.log(`verifying receiver at ${actor.id}`));
