import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { base64UrlPaddedDecode, base64UrlPaddedEncode } from '../encoding/index.js';
import { AppError } from '../errors/index.js';
import { peerStatusOf } from '../http-client/index.js';
import { KmsClient, kmsSigner } from './index.js';

// The wire mapping, retry policy and error mapping of the client against a scripted peer. The client against
// the real kms service (every operation, the signer in services) is tested in test/integration.

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

type Script = (seen: Seen, res: ServerResponse) => void;

async function startPeer(script: Script) {
  const seen: Seen[] = [];
  const server = http.createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const one: Seen = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
    };
    seen.push(one);
    script(one, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
}

const FAST_RETRY = { attempts: 3, initialMs: 1, multiplier: 1, maxMs: 1 };

describe('KmsClient', () => {
  let peer: Awaited<ReturnType<typeof startPeer>>;
  let script: Script;
  let client: KmsClient;
  beforeEach(async () => {
    script = (_seen, res) => reply(res, 500, { message: 'unscripted' });
    peer = await startPeer((seen, res) => script(seen, res));
    client = new KmsClient({ url: `${peer.url}/`, token: 'admin-token', retry: FAST_RETRY });
  });
  afterEach(async () => {
    client.close();
    await peer.close();
  });

  it('creates a keystore with the admin token and opens it with its capability', async () => {
    script = (seen, res) =>
      seen.path === '/v1/keystores'
        ? reply(
            res,
            201,
            { id: 'ks1', location: `${peer.url}/v1/keystores/ks1`, controller: 'did:key:z6Mk', capability: 'cap-1' },
            { location: `${peer.url}/v1/keystores/ks1` },
          )
        : reply(res, 200, { id: 'ks1', controller: 'did:key:z6Mk', createdAt: '2026-11-26T06:00:00Z' });
    const created = await client.createKeystore({ controller: 'did:key:z6Mk' });
    expect(created).toEqual({
      id: 'ks1',
      location: `${peer.url}/v1/keystores/ks1`,
      controller: 'did:key:z6Mk',
      capability: 'cap-1',
    });
    const keystore = client.keystore(created.id, { capability: created.capability });
    expect(await keystore.info()).toEqual({ id: 'ks1', controller: 'did:key:z6Mk', createdAt: '2026-11-26T06:00:00Z' });
    expect(peer.seen.map((s) => [s.method, s.path, s.headers.authorization])).toEqual([
      ['POST', '/v1/keystores', 'Bearer admin-token'],
      ['GET', '/v1/keystores/ks1', 'Bearer cap-1'],
    ]);
    expect(peer.seen[0]?.body).toEqual({ controller: 'did:key:z6Mk' });
  });

  it('refuses to open a keystore with no way to authenticate', () => {
    expect(() => client.keystore('ks1')).toThrow(/capability token or a request signer/);
  });

  it('signs keystore requests with the request signer when no capability is given', async () => {
    const signing = new KmsClient({
      url: peer.url,
      retry: FAST_RETRY,
      requestSigner: async (request) => ({ Signature: `signed ${request.method} ${new URL(request.url).pathname}` }),
    });
    script = (_seen, res) => reply(res, 200, { id: 'ks1' });
    try {
      await signing.keystore('ks1').info();
    } finally {
      signing.close();
    }
    expect(peer.seen[0]?.headers.signature).toBe('signed GET /v1/keystores/ks1');
    expect(peer.seen[0]?.headers.authorization).toBeUndefined();
  });

  it('sends and reads every binary field as padded base64url', async () => {
    const message = Buffer.from([0xfb, 0xff]);
    script = (seen, res) => {
      if (seen.path.endsWith('/sign'))
        return reply(res, 200, { signature: base64UrlPaddedEncode('sig'), keyVersion: 2 });
      if (seen.path.endsWith('/encrypt'))
        return reply(res, 200, { cipherText: base64UrlPaddedEncode('ct'), nonce: base64UrlPaddedEncode('n') });
      if (seen.path.endsWith('/verify')) return reply(res, 200, { verified: false });
      if (seen.path.endsWith('/wrap'))
        return reply(res, 200, {
          wrappedKey: {
            kid: base64UrlPaddedEncode('bob'),
            encryptedCEK: base64UrlPaddedEncode('wrapped'),
            epk: {
              x: base64UrlPaddedEncode('x'),
              y: base64UrlPaddedEncode('y'),
              curve: base64UrlPaddedEncode('P-256'),
              type: base64UrlPaddedEncode('EC'),
            },
            alg: base64UrlPaddedEncode('ECDH-ES+A256KW'),
            apu: base64UrlPaddedEncode('a'),
            apv: base64UrlPaddedEncode('b'),
          },
        });
      return reply(res, 201, { location: `${peer.url}/v1/keystores/ks1/keys/k%2F1`, keyID: 'k/1', keyVersion: 1 });
    };
    const keystore = client.keystore('ks1', { capability: 'cap' });
    expect(await keystore.createKey('ED25519')).toEqual({
      keyId: 'k/1',
      location: `${peer.url}/v1/keystores/ks1/keys/k%2F1`,
      keyVersion: 1,
    });
    expect(await keystore.sign('k/1', message)).toEqual({ value: Buffer.from('sig'), keyVersion: 2 });
    expect(await keystore.verify('k/1', Buffer.from('sig'), message, 1)).toBe(false);
    expect(await keystore.encrypt('k/1', message, Buffer.from('aad'))).toEqual({
      cipherText: Buffer.from('ct'),
      nonce: Buffer.from('n'),
    });
    const wrapped = await keystore.wrap({
      cek: Buffer.alloc(32, 1),
      apu: Buffer.from('a'),
      apv: Buffer.from('b'),
      recipient: { kid: 'bob', x: Buffer.from('x'), y: Buffer.from('y'), curve: 'P-256', type: 'EC' },
    });
    expect(wrapped.alg).toBe('ECDH-ES+A256KW');
    expect(wrapped.epk).toEqual({ x: Buffer.from('x'), y: Buffer.from('y'), curve: 'P-256', type: 'EC' });

    expect(peer.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /v1/keystores/ks1/keys',
      'POST /v1/keystores/ks1/keys/k%2F1/sign',
      'POST /v1/keystores/ks1/keys/k%2F1/verify',
      'POST /v1/keystores/ks1/keys/k%2F1/encrypt',
      'POST /v1/keystores/ks1/wrap',
    ]);
    expect(peer.seen[0]?.body).toEqual({ keyType: 'ED25519' });
    expect(peer.seen[1]?.body).toEqual({ message: '-_8=' });
    expect(peer.seen[2]?.body).toEqual({ signature: 'c2ln', message: '-_8=', keyVersion: 1 });
    expect(peer.seen[3]?.body).toEqual({ message: '-_8=', aad: 'YWFk' });
    expect(peer.seen[4]?.body?.recPubKey).toEqual({
      kid: 'Ym9i',
      x: 'eA==',
      y: 'eQ==',
      curve: 'UC0yNTY=',
      type: 'RUM=',
    });
  });

  it('maps refusals to the common errors, naming the kms, without retrying them', async () => {
    script = (seen, res) =>
      seen.path.includes('/keys/missing')
        ? reply(res, 404, { message: 'no key missing in keystore ks1' })
        : seen.path.endsWith('/sign')
          ? reply(res, 400, { message: 'message: not padded base64url' })
          : reply(res, 401, { message: 'unauthorized' });
    const keystore = client.keystore('ks1', { capability: 'wrong' });
    const notFound = await failureOf(keystore.exportPublicKey('missing/x'));
    expect([notFound.code, notFound.status, notFound.retryable, peerStatusOf(notFound)]).toEqual([
      'not_found',
      404,
      false,
      404,
    ]);
    expect(notFound.message).toMatch(/^kms: GET .*\/keys\/missing%2Fx: 404 Not Found: no key missing/);
    expect((await failureOf(keystore.sign('k', Buffer.alloc(1)))).code).toBe('bad_request');
    expect((await failureOf(keystore.info())).code).toBe('unauthorized');
    expect(peer.seen).toHaveLength(3);
  });

  it('retries operations on retryable failures, and never a create', async () => {
    let failures = 2;
    script = (_seen, res) =>
      failures-- > 0
        ? reply(res, 503, { message: 'store busy' })
        : reply(res, 200, { signature: base64UrlPaddedEncode('ok') });
    const keystore = client.keystore('ks1', { capability: 'cap' });
    expect((await keystore.sign('k', Buffer.from('m'))).value.toString()).toBe('ok');
    expect(peer.seen).toHaveLength(3);

    script = (_seen, res) => reply(res, 503, { message: 'store busy' });
    const failed = await failureOf(keystore.createKey('ED25519'));
    expect([failed.retryable, peerStatusOf(failed)]).toEqual([true, 503]);
    expect(peer.seen).toHaveLength(4);
    await failureOf(keystore.rotateKey('k'));
    await failureOf(client.createKeystore({ controller: 'did:key:z' }));
    expect(peer.seen).toHaveLength(6);
    await failureOf(keystore.sign('k', Buffer.from('m')));
    expect(peer.seen).toHaveLength(9);
  });

  it('calls an answer it cannot read a bad gateway, not retryable', async () => {
    script = (_seen, res) => reply(res, 200, { signature: 'c2ln' + '/' });
    const failed = await failureOf(client.keystore('ks1', { capability: 'cap' }).sign('k', Buffer.from('m')));
    expect([failed.code, failed.retryable]).toEqual(['bad_gateway', false]);
    expect(failed.message).toMatch(/kms: sign: the answer has "signature" is not padded base64url/);
    expect(peer.seen).toHaveLength(1);
  });

  it('signs a batch in one request and reads its signatures in order; a short or bad list is a bad gateway', async () => {
    const keystore = client.keystore('ks1', { capability: 'cap' });
    script = (seen, res) =>
      reply(res, 200, {
        signatures: (seen.body?.messages as string[]).map((m) => base64UrlPaddedEncode(`sig:${m}`)),
        keyVersion: 3,
      });
    const signed = await keystore.signBatch('k/1', [Buffer.from([0xfb, 0xff]), Buffer.from('b')]);
    expect(signed).toEqual({ value: [Buffer.from('sig:-_8='), Buffer.from('sig:Yg==')], keyVersion: 3 });
    expect(peer.seen[0]?.path).toBe('/v1/keystores/ks1/keys/k%2F1/signbatch');
    expect(peer.seen[0]?.body).toEqual({ messages: ['-_8=', 'Yg=='] });

    script = (_seen, res) => reply(res, 200, { signatures: [base64UrlPaddedEncode('only one')], keyVersion: 1 });
    const short = await failureOf(keystore.signBatch('k', [Buffer.from('a'), Buffer.from('b')]));
    expect([short.code, short.message]).toEqual([
      'bad_gateway',
      'kms: signbatch: the answer has 1 signatures for 2 messages',
    ]);
    script = (_seen, res) => reply(res, 200, { signatures: ['c2ln', 7] });
    const bad = await failureOf(keystore.signBatch('k', [Buffer.from('a'), Buffer.from('b')]));
    expect(bad.message).toBe('kms: signbatch[1]: the answer has no "signature"');
    script = (_seen, res) => reply(res, 200, { signature: 'c2ln' });
    expect((await failureOf(keystore.signBatch('k', [Buffer.from('a')]))).message).toMatch(/no "signatures" list/);
  });

  it('reports the health of the kms', async () => {
    script = (_seen, res) => reply(res, 503, { status: 'Starting' });
    expect(await client.health()).toMatchObject({ healthy: false, status: 503 });
    script = (_seen, res) => reply(res, 200, { status: 'OK' });
    expect(await client.health()).toEqual({ healthy: true, status: 200, body: { status: 'OK' } });
  });
});

describe('kmsSigner', () => {
  let peer: Awaited<ReturnType<typeof startPeer>> | undefined;
  let client: KmsClient | undefined;
  afterEach(async () => {
    client?.close();
    await peer?.close();
    client = peer = undefined;
  });

  /** A scripted key: exports `publicKey` as `keyType` at `version`, signs with `signWith`. */
  async function keyPeer(key: {
    keyType: string;
    publicKey: () => Uint8Array;
    signWith: (message: Buffer) => Uint8Array;
    version: () => number;
  }) {
    client?.close();
    await peer?.close();
    peer = await startPeer((seen, res) => {
      if (seen.method === 'GET')
        return reply(res, 200, {
          publicKey: base64UrlPaddedEncode(key.publicKey()),
          keyType: key.keyType,
          keyVersion: key.version(),
        });
      const message = base64UrlPaddedDecode(seen.body?.message as string);
      return reply(res, 200, { signature: base64UrlPaddedEncode(key.signWith(message)), keyVersion: key.version() });
    });
    client = new KmsClient({ url: peer.url, retry: FAST_RETRY });
    return { keystore: client.keystore('ks1', { capability: 'cap' }), url: peer.url };
  }

  it('signs with an Ed25519 kms key as a local key would', async () => {
    const local = KeyPair.generate('Ed25519');
    const { keystore, url } = await keyPeer({
      keyType: 'ED25519',
      publicKey: () => local.publicKeyBytes(),
      signWith: (m) => local.sign(m),
      version: () => 1,
    });
    const signer = await kmsSigner(keystore, 'key1');
    expect([signer.type, signer.keyRef, signer.keyVersion]).toEqual([
      'Ed25519',
      `${url}/v1/keystores/ks1/keys/key1#v1`,
      1,
    ]);
    expect(signer.publicKey.isPrivate).toBe(false);
    const data = Buffer.from('anchor credential');
    expect(Buffer.from(await signer.sign(data))).toEqual(local.sign(data));
    expect(await signer.health()).toBe('success');
  });

  it('turns DER signatures of an ECDSA DER key into P1363, with the SPKI public key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { keystore } = await keyPeer({
      keyType: 'ECDSAP256DER',
      publicKey: () => publicKey.export({ format: 'der', type: 'spki' }),
      signWith: (m) => nodeSign('sha256', m, { key: privateKey, dsaEncoding: 'der' }),
      version: () => 1,
    });
    const signer = await kmsSigner(keystore, 'p256');
    expect(signer.type).toBe('P-256');
    const data = Buffer.from('tree head');
    const signature = await signer.sign(data);
    expect(signature).toHaveLength(64);
    expect(signer.publicKey.verify(data, Buffer.from(signature))).toBe(true);
  });

  it('refuses a key that cannot sign, and a rotated key', async () => {
    let version = 1;
    const local = KeyPair.generate('Ed25519');
    let published = local.publicKeyBytes();
    const { keystore } = await keyPeer({
      keyType: 'ED25519',
      publicKey: () => published,
      signWith: (m) => local.sign(m),
      version: () => version,
    });
    const signer = await kmsSigner(keystore, 'key1');
    version = 2;
    published = KeyPair.generate('Ed25519').publicKeyBytes();
    const refused = await failureOf(signer.sign(Buffer.from('x')));
    expect([refused.code, refused.retryable]).toEqual(['conflict', false]);
    expect(refused.message).toMatch(/rotated to version 2; this service publishes version 1/);
    expect(await signer.health()).toMatch(/was rotated \(version 2\)/);

    const aes = await keyPeer({
      keyType: 'AES256GCM',
      publicKey: () => Buffer.alloc(0),
      signWith: () => Buffer.alloc(0),
      version: () => 1,
    });
    await expect(kmsSigner(aes.keystore, 'aes')).rejects.toThrow(/is AES256GCM; a signing key must be one of ED25519/);
  });

  it('reports a kms it cannot reach as unhealthy, with the reason', async () => {
    const local = KeyPair.generate('Ed25519');
    const { keystore } = await keyPeer({
      keyType: 'ED25519',
      publicKey: () => local.publicKeyBytes(),
      signWith: (m) => local.sign(m),
      version: () => 1,
    });
    const signer = await kmsSigner(keystore, 'key1');
    await peer?.close();
    peer = undefined;
    expect(await signer.health()).toMatch(/^kms: GET .*ECONNREFUSED/);
  });
});
