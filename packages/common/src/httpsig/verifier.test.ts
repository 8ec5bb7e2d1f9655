import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { AppError, notFound } from '../errors/index.js';
import type { SignatureAuthenticator } from '../http/principal.js';
import { httpDate } from './date.js';
import { digestHeader } from './digest.js';
import { createSignedFetch } from './outbound.js';
import {
  startPeer,
  startReceiver,
  serviceOn,
  type Peer,
  type Receiver,
  type ServiceFixture,
} from './loopback.test-helpers.js';
import { formatSignatureHeader } from './signature-header.js';
import { createRequestSigner } from './signer.js';
import { buildSigningString, recordHeaderLookup } from './signing-string.js';
import { createSignatureAuthenticator, type SignatureVerifierOptions } from './verifier.js';

/** One clock for sender and receiver, so tests can move time (Date window, cache expiry) deterministically. */
const clock = { t: Date.now() };
let peer: Peer;
let receiver: Receiver | undefined;
let key: KeyPair;
let service: ServiceFixture;

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => {
  await peer.close();
});
beforeEach(() => {
  clock.t = Date.now();
  key = KeyPair.generate('Ed25519');
  // A fresh service name per test keeps caches and hit counters independent.
  service = serviceOn(peer, `node-${Math.random().toString(36).slice(2, 10)}`, key);
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function receive(options: SignatureVerifierOptions = {}, required = true): Promise<string> {
  receiver = await startReceiver(createSignatureAuthenticator({ now: () => clock.t, ...options }), { required });
  return receiver.url;
}

function signedFetch(
  signingKey: KeyPair = key,
  options: { keyId?: string; digestAlgorithm?: 'SHA-256' | 'SHA-512'; skewMs?: number } = {},
) {
  const signer = createRequestSigner({
    keyId: options.keyId ?? service.keyId,
    key: signingKey,
    now: () => new Date(clock.t + (options.skewMs ?? 0)),
    ...(options.digestAlgorithm ? { digestAlgorithm: options.digestAlgorithm } : {}),
  });
  return createSignedFetch(signer);
}

async function answer(response: Response): Promise<{ status: number; json: Record<string, any> }> {
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

/** Signs a request by hand, to produce what a (mis)behaving peer might send. */
function craftHeaders(options: {
  signed: string[];
  headers: Record<string, string>;
  method: string;
  path: string;
  signingKey?: KeyPair;
  algorithm?: string;
  keyId?: string;
}) {
  const signingString = buildSigningString(options.signed, {
    method: options.method,
    target: options.path,
    header: recordHeaderLookup(options.headers),
  });
  return {
    ...options.headers,
    Signature: formatSignatureHeader({
      keyId: options.keyId ?? service.keyId,
      algorithm: options.algorithm ?? 'Sign',
      headers: options.signed,
      signature: (options.signingKey ?? key).sign(Buffer.from(signingString)),
    }),
  };
}

describe('sign and verify over loopback HTTP', () => {
  it('verifies a signed GET (with a query) and names the actor from the actor document', async () => {
    const url = await receive();
    const { status, json } = await answer(await signedFetch()(`${url}/services/node/outbox?page=true&page-num=3`));
    expect(status).toBe(200);
    expect(json.principal).toEqual({ kind: 'signature', actor: service.serviceId, keyId: service.keyId });
  });

  it('verifies a signed POST with a JSON body against its SHA-256 Digest', async () => {
    const url = await receive();
    const activity = { '@context': 'https://www.w3.org/ns/activitystreams', type: 'Follow', actor: service.serviceId };
    const response = await signedFetch()(`${url}/services/node/inbox`, {
      method: 'POST',
      body: JSON.stringify(activity),
      headers: { 'content-type': 'application/activity+json' },
    });
    const { status, json } = await answer(response);
    expect(status).toBe(200);
    expect(json.body).toEqual(activity);
    expect(json.digest).toBe(digestHeader(Buffer.from(JSON.stringify(activity))));
    expect(json.principal.actor).toBe(service.serviceId);
  });

  it('accepts a SHA-512 Digest', async () => {
    const url = await receive();
    const response = await signedFetch(key, { digestAlgorithm: 'SHA-512' })(`${url}/inbox`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    const { status, json } = await answer(response);
    expect(status).toBe(200);
    expect(json.digest).toMatch(/^SHA-512=/);
  });

  it("verifies P-256 and P-384 signers whose keys are published in Orb's PEM form", async () => {
    const url = await receive();
    for (const type of ['P-256', 'P-384'] as const) {
      const ecKey = KeyPair.generate(type);
      service.publish(ecKey);
      // Past the refetch interval, so the swapped key is picked up as a rotation.
      clock.t += 2000;
      const { status } = await answer(
        await signedFetch(ecKey)(`${url}/inbox`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        }),
      );
      expect(status).toBe(200);
    }
  });

  it('accepts an actor whose publicKey is the bare key id', async () => {
    service.publish(key, service.keyId);
    const url = await receive();
    expect((await signedFetch()(`${url}/x`)).status).toBe(200);
  });

  it('passes unsigned requests through as anonymous when signatures are optional, and refuses them when required', async () => {
    const optional = await receive({}, false);
    expect((await answer(await fetch(`${optional}/x`))).json.principal).toEqual({ kind: 'anonymous' });
    await receiver?.close();
    const required = await receive();
    const { status, json } = await answer(await fetch(`${required}/x`));
    expect(status).toBe(401);
    expect(json.message).toContain('requires an HTTP-signed request');
  });
});

describe('rejections', () => {
  it('rejects a signature made with another key (401)', async () => {
    const url = await receive();
    const { status, json } = await answer(await signedFetch(KeyPair.generate('Ed25519'))(`${url}/x`));
    expect(status).toBe(401);
    expect(json.message).toBe(`invalid signature: it does not verify with key ${service.keyId}`);
  });

  it('rejects when the owner actor names a different key (impersonation attempt)', async () => {
    service.publish(key, { id: `${service.serviceId}/keys/other-key`, owner: service.serviceId, publicKeyPem: 'x' });
    const url = await receive();
    const { status, json } = await answer(await signedFetch()(`${url}/x`));
    expect(status).toBe(401);
    expect(json.message).toContain('actor/key mismatch');
    expect(json.message).toContain(`${service.serviceId}/keys/other-key`);
  });

  it('rejects a key document whose id is not the keyId, and an actor document with another id', async () => {
    const url = await receive();
    peer.serve(service.keyPath, {
      json: { id: `${peer.url}/elsewhere`, owner: service.serviceId, publicKeyPem: key.publicKeyPem() },
    });
    expect((await answer(await signedFetch()(`${url}/x`))).json.message).toContain('does not match keyId');

    const other = serviceOn(peer, `node-b-${Date.now()}`, key);
    peer.serve(other.actorPath, { json: { id: `${peer.url}/services/impostor`, publicKey: other.keyId } });
    const { status, json } = await answer(await signedFetch(key, { keyId: other.keyId })(`${url}/x`));
    expect(status).toBe(401);
    expect(json.message).toContain('has id');
  });

  it('rejects a stale Date and a far-future Date, even when correctly signed', async () => {
    const url = await receive();
    const stale = await answer(await signedFetch(key, { skewMs: -6 * 60_000 })(`${url}/x`));
    expect(stale.status).toBe(401);
    expect(stale.json.message).toContain('stale Date header');
    const future = await answer(await signedFetch(key, { skewMs: 24 * 3_600_000 })(`${url}/x`));
    expect(future.status).toBe(401);
    expect(future.json.message).toContain('in the future');
    // Within the window in both directions is fine.
    expect((await signedFetch(key, { skewMs: -4 * 60_000 })(`${url}/x`)).status).toBe(200);
    expect((await signedFetch(key, { skewMs: 4 * 60_000 })(`${url}/x`)).status).toBe(200);
  });

  it('rejects a body changed after signing (Digest mismatch)', async () => {
    const url = await receive();
    const signer = createRequestSigner({ keyId: service.keyId, key, now: () => new Date(clock.t) });
    const signed = await signer({
      method: 'POST',
      url: `${url}/inbox`,
      headers: {},
      body: Buffer.from('{"amount":1}'),
    });
    const response = await fetch(`${url}/inbox`, {
      method: 'POST',
      body: '{"amount":9}',
      headers: { ...signed, 'content-type': 'application/json' },
    });
    const { status, json } = await answer(response);
    expect(status).toBe(401);
    expect(json.message).toContain('Digest mismatch');
  });

  it('rejects a signed Digest of an unsupported algorithm', async () => {
    const url = await receive();
    const body = '{"a":1}';
    const headers = craftHeaders({
      method: 'POST',
      path: '/inbox',
      signed: ['(request-target)', 'Date', 'Digest'],
      headers: {
        Date: httpDate(new Date(clock.t)),
        Digest: `MD5=${createHash('md5').update(body).digest('base64')}`,
        'content-type': 'application/json',
      },
    });
    const { status, json } = await answer(await fetch(`${url}/inbox`, { method: 'POST', body, headers }));
    expect(status).toBe(401);
    expect(json.message).toContain('unsupported Digest algorithm MD5');
  });

  it.each([
    ['(request-target)', ['Date'], 'the signature must cover (request-target)'],
    ['date', ['(request-target)'], 'the signature must cover date'],
    ['digest (with a body)', ['(request-target)', 'Date'], 'the signature must cover digest'],
  ])('rejects a signature that does not cover %s', async (_what, signed, message) => {
    const url = await receive();
    const body = '{"a":1}';
    const headers = craftHeaders({
      method: 'POST',
      path: '/inbox',
      signed,
      headers: {
        Date: httpDate(new Date(clock.t)),
        Digest: digestHeader(Buffer.from(body)),
        'content-type': 'application/json',
      },
    });
    const response = await answer(await fetch(`${url}/inbox`, { method: 'POST', body, headers }));
    expect(response.status).toBe(401);
    expect(response.json.message).toContain(message);
  });

  it('rejects a signed header the request lacks, an algorithm that does not fit the key, and a non-URL keyId', async () => {
    const url = await receive();
    const date = httpDate(new Date(clock.t));
    const lacksHost = craftHeaders({
      method: 'GET',
      path: '/x',
      signed: ['(request-target)', 'date'],
      headers: { Date: date },
    });
    lacksHost.Signature = lacksHost.Signature.replace(
      'headers="(request-target) date"',
      'headers="(request-target) date x-custom"',
    );
    expect((await answer(await fetch(`${url}/x`, { headers: lacksHost }))).json.message).toContain(
      'covers x-custom, which the request lacks',
    );

    const rsa = craftHeaders({
      method: 'GET',
      path: '/x',
      signed: ['(request-target)', 'date'],
      headers: { Date: date },
      algorithm: 'rsa-sha256',
    });
    const rsaAnswer = await answer(await fetch(`${url}/x`, { headers: rsa }));
    expect(rsaAnswer.status).toBe(401);
    expect(rsaAnswer.json.message).toContain('"rsa-sha256" does not fit the Ed25519 key');

    const local = craftHeaders({
      method: 'GET',
      path: '/x',
      signed: ['(request-target)', 'date'],
      headers: { Date: date },
      keyId: 'file:///etc/passwd',
    });
    expect((await answer(await fetch(`${url}/x`, { headers: local }))).json.message).toContain(
      'keyId must be an http(s) URL or a DID URL',
    );
  });

  it('answers malformed Signature headers with a clear 401, never a 500', async () => {
    const url = await receive();
    const date = httpDate(new Date(clock.t));
    const cases: [string, string][] = [
      ['nonsense', 'expected name=value at offset 0'],
      ['keyId="a",keyId="b",signature="AAAA"', 'duplicate parameter keyId'],
      [`keyId="${service.keyId}",headers="(request-target) date"`, 'missing signature'],
      [`keyId="${service.keyId}",headers="(request-target) date",signature="%%%"`, 'signature is not base64'],
    ];
    for (const [signature, reason] of cases) {
      const { status, json } = await answer(await fetch(`${url}/x`, { headers: { Date: date, Signature: signature } }));
      expect(status).toBe(401);
      expect(json.message).toBe(`malformed Signature header: ${reason}`);
    }
  });

  it('fetches nothing for requests that fail the cheap checks', async () => {
    const url = await receive();
    await fetch(`${url}/x`, {
      headers: {
        Date: 'yesterday',
        Signature: `keyId="${service.keyId}",headers="(request-target) date",signature="AAAA"`,
      },
    });
    expect(peer.hits(service.keyPath)).toBe(0);
  });
});

describe('key and actor fetching', () => {
  it('caches keys and actors: repeated requests fetch each document once', async () => {
    const url = await receive();
    const send = signedFetch();
    for (let i = 0; i < 3; i++) expect((await send(`${url}/x`)).status).toBe(200);
    expect(peer.hits(service.keyPath)).toBe(1);
    expect(peer.hits(service.actorPath)).toBe(1);
  });

  it('shares one fetch between concurrent first requests', async () => {
    const url = await receive();
    const send = signedFetch();
    const statuses = await Promise.all(Array.from({ length: 5 }, () => send(`${url}/x`).then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(peer.hits(service.keyPath)).toBe(1);
  });

  it('handles key rotation: a cached key that fails is refetched once, then the new key verifies', async () => {
    const url = await receive({ minRefetchIntervalMs: 1000 });
    expect((await signedFetch()(`${url}/x`)).status).toBe(200);
    const rotated = KeyPair.generate('Ed25519');
    service.publish(rotated);
    clock.t += 2000;
    expect((await signedFetch(rotated)(`${url}/x`)).status).toBe(200);
    expect(peer.hits(service.keyPath)).toBe(2);
    // The refreshed key is cached now: no further fetch; the old key no longer verifies, and since the key
    // was fetched within the refetch interval its failure costs no fetch either.
    expect((await signedFetch(rotated)(`${url}/x`)).status).toBe(200);
    expect((await signedFetch(key)(`${url}/x`)).status).toBe(401);
    expect(peer.hits(service.keyPath)).toBe(2);
  });

  it('refetches at most once per interval when a cached key keeps failing (forged signatures)', async () => {
    const url = await receive({ minRefetchIntervalMs: 60_000 });
    expect((await signedFetch()(`${url}/x`)).status).toBe(200);
    const forger = signedFetch(KeyPair.generate('Ed25519'));
    for (let i = 0; i < 3; i++) expect((await forger(`${url}/x`)).status).toBe(401);
    expect(peer.hits(service.keyPath)).toBe(1);
  });

  it('picks up a rotated actor key id through a cached actor', async () => {
    const url = await receive();
    expect((await signedFetch()(`${url}/x`)).status).toBe(200);
    const newKey = KeyPair.generate('Ed25519');
    const newKeyId = `${service.serviceId}/keys/key-2`;
    peer.serve(`${service.actorPath}/keys/key-2`, {
      json: { id: newKeyId, owner: service.serviceId, publicKeyPem: newKey.publicKeyPem() },
    });
    peer.serve(service.actorPath, { json: { id: service.serviceId, type: 'Service', publicKey: newKeyId } });
    clock.t += 2000;
    expect((await signedFetch(newKey, { keyId: newKeyId })(`${url}/x`)).status).toBe(200);
    expect(peer.hits(service.actorPath)).toBe(2);
  });

  it("does not refetch a victim's actor per request when a key document falsely claims it as owner", async () => {
    const url = await receive({ minRefetchIntervalMs: 60_000 });
    const malloryKey = KeyPair.generate('Ed25519');
    const mallory = serviceOn(peer, `mallory-${Date.now()}`, malloryKey);
    peer.serve(mallory.keyPath, {
      json: { id: mallory.keyId, owner: service.serviceId, publicKeyPem: malloryKey.publicKeyPem() },
    });
    for (let i = 0; i < 3; i++) {
      const { status, json } = await answer(await signedFetch(malloryKey, { keyId: mallory.keyId })(`${url}/x`));
      expect(status).toBe(401);
      expect(json.message).toContain('actor/key mismatch');
    }
    expect(peer.hits(service.actorPath)).toBe(1);
  });

  it('caches a missing key briefly (negative cache) and fetches again once that expires', async () => {
    peer.serve(service.keyPath, { status: 404 });
    const url = await receive({ negativeCacheTtlMs: 30_000 });
    const first = await answer(await signedFetch()(`${url}/x`));
    expect(first.status).toBe(401);
    expect(first.json.message).toContain('answered 404');
    service.publish(key);
    expect((await signedFetch()(`${url}/x`)).status).toBe(401);
    expect(peer.hits(service.keyPath)).toBe(1);
    clock.t += 31_000;
    expect((await signedFetch()(`${url}/x`)).status).toBe(200);
    expect(peer.hits(service.keyPath)).toBe(2);
  });

  it('answers 503 when the key server fails transiently (5xx, timeout) and does not cache that', async () => {
    peer.serve(service.keyPath, { status: 502 });
    const url = await receive({ fetchTimeoutMs: 300 });
    const failed = await answer(await signedFetch()(`${url}/x`));
    expect(failed.status).toBe(503);
    expect(failed.json.message).toContain('answered 502');

    peer.serve(service.keyPath, 'hang');
    const timedOut = await answer(await signedFetch()(`${url}/x`));
    expect(timedOut.status).toBe(503);
    expect(timedOut.json.message).toContain('timed out');

    service.publish(key);
    expect((await signedFetch()(`${url}/x`)).status).toBe(200);
  });

  it('answers 503 when the key host is unreachable', async () => {
    const url = await receive();
    const { status, json } = await answer(
      await signedFetch(key, { keyId: 'http://127.0.0.1:1/keys/main-key' })(`${url}/x`),
    );
    expect(status).toBe(503);
    expect(json.message).toContain('fetching key http://127.0.0.1:1/keys/main-key failed');
  });
});

describe('DID URL keyIds', () => {
  const did = 'did:web:node.example.com:services:node';

  function didResolver(keys: Record<string, KeyPair>): NonNullable<SignatureVerifierOptions['resolveDidKey']> {
    return async (didUrl) => {
      const found = keys[didUrl];
      if (!found) throw notFound(`no verification method ${didUrl}`);
      return found.toPublic();
    };
  }

  it('resolves the key through the injected DID resolver; the verified actor is the DID (the service actor id)', async () => {
    const url = await receive({ resolveDidKey: didResolver({ [`${did}#main-key`]: key }) });
    const { status, json } = await answer(
      await signedFetch(key, { keyId: `${did}#main-key` })(`${url}/inbox`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(status).toBe(200);
    expect(json.principal).toEqual({ kind: 'signature', actor: did, keyId: `${did}#main-key` });
  });

  it('rejects unknown verification methods, DID URLs without a fragment, and DIDs when no resolver is configured', async () => {
    const url = await receive({ resolveDidKey: didResolver({}) });
    const unknown = await answer(await signedFetch(key, { keyId: `${did}#other` })(`${url}/x`));
    expect(unknown.status).toBe(401);
    expect(unknown.json.message).toContain('no verification method');
    const bare = await answer(await signedFetch(key, { keyId: did })(`${url}/x`));
    expect(bare.json.message).toContain('must name a verification method');
    await receiver?.close();
    const noResolver = await receive();
    expect(
      (await answer(await signedFetch(key, { keyId: `${did}#main-key` })(`${noResolver}/x`))).json.message,
    ).toContain('no DID resolver configured');
  });

  it('maps a transient resolver failure to 503', async () => {
    const url = await receive({
      resolveDidKey: async () => {
        throw new AppError('unavailable', 'did:web host down');
      },
    });
    expect((await signedFetch(key, { keyId: `${did}#main-key` })(`${url}/x`)).status).toBe(503);
  });
});

describe('the bare authenticator', () => {
  it('resolves undefined for a request without a Signature header', async () => {
    const authenticate: SignatureAuthenticator = createSignatureAuthenticator();
    await expect(authenticate({ method: 'GET', originalUrl: '/', headers: {} })).resolves.toBeUndefined();
  });

  it('refuses a request whose body bytes were not captured', async () => {
    const authenticate = createSignatureAuthenticator({ now: () => clock.t });
    const headers = craftHeaders({
      method: 'POST',
      path: '/inbox',
      signed: ['(request-target)', 'date'],
      headers: { Date: httpDate(new Date(clock.t)) },
    });
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    await expect(
      authenticate({ method: 'POST', originalUrl: '/inbox', headers: { ...lower, 'content-length': '10' } }),
    ).rejects.toThrow('was not captured');
  });
});
