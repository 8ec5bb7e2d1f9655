import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import { contentDigestHeader } from './content-digest.js';
import { servicePublicKeyDocument } from './key-document.js';
import {
  startPeer,
  startReceiver,
  serviceOn,
  type Peer,
  type Receiver,
  type ServiceFixture,
} from './loopback.test-helpers.js';
import { parseMessageSignature, signatureInput, type MessageSignatureParameters } from './message-signature.js';
import { signMessage } from './message-signer.js';
import { createSignedFetch } from './outbound.js';
import { createRequestSigner } from './signer.js';
import { createSignatureAuthenticator, type SignatureVerifierOptions } from './verifier.js';

/** RFC 9421 signatures over loopback HTTP, verified by the same authenticator (and key rules) as draft-cavage. */
const JSON_TYPE = { 'content-type': 'application/json' };
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
  // Whole seconds, as `created` is: the window messages then name exact ages.
  clock.t = Math.floor(Date.now() / 1000) * 1000;
  key = KeyPair.generate('Ed25519');
  service = serviceOn(peer, `node-${Math.random().toString(36).slice(2, 10)}`, key);
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function receive(options: SignatureVerifierOptions = {}): Promise<string> {
  receiver = await startReceiver(
    createSignatureAuthenticator({ now: () => clock.t, targetScheme: 'http', ...options }),
  );
  return receiver.url;
}

function signedFetch(signingKey: KeyPair = key, skewMs = 0) {
  return createSignedFetch(
    createRequestSigner({
      keyId: service.keyId,
      key: signingKey,
      scheme: 'rfc9421',
      now: () => new Date(clock.t + skewMs),
    }),
  );
}

async function answer(response: Response): Promise<{ status: number; json: Record<string, any> }> {
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

/** Signs a request by hand with any components and parameters, to produce what a (mis)behaving peer might send. */
async function craft(
  url: string,
  options: {
    method?: string;
    body?: string;
    components: string[];
    params?: MessageSignatureParameters;
    headers?: Record<string, string>;
  },
): Promise<Response> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-digest'] ??= contentDigestHeader(Buffer.from(options.body));
  }
  const params = { created: Math.floor(clock.t / 1000), keyid: service.keyId, ...options.params };
  const input = signatureInput(options.components, params);
  const fields = await signMessage(
    { method, url, headers: { host: new URL(url).host, ...headers } },
    input,
    key,
    'Ed25519',
    'sig1',
  );
  return fetch(url, {
    method,
    headers: { ...headers, ...fields },
    ...(options.body === undefined ? {} : { body: options.body }),
  });
}

describe('RFC 9421 signatures, signed and verified', () => {
  it('writes sig1 over @method and @target-uri with created, keyid and alg, and no draft-cavage headers', async () => {
    const signer = createRequestSigner({ keyId: service.keyId, key, scheme: 'rfc9421', now: () => new Date(clock.t) });
    const added = await signer({ method: 'GET', url: 'https://b.example/services/node/outbox?page=true', headers: {} });
    expect(Object.keys(added).sort()).toEqual(['Signature', 'Signature-Input']);
    expect(added['Signature-Input']).toBe(
      `sig1=("@method" "@target-uri");created=${Math.floor(clock.t / 1000)};keyid="${service.keyId}";alg="ed25519"`,
    );
    const withBody = await signer({
      method: 'POST',
      url: 'https://b.example/inbox',
      headers: {},
      body: Buffer.from('{}'),
    });
    expect(withBody['Content-Digest']).toBe(contentDigestHeader(Buffer.from('{}')));
    expect(
      parseMessageSignature({ 'signature-input': withBody['Signature-Input'], signature: withBody.Signature })
        .componentNames,
    ).toEqual(['@method', '@target-uri', 'content-digest']);
  });

  it('verifies a signed GET with a query and names the actor from the actor document', async () => {
    const url = await receive();
    const { status, json } = await answer(await signedFetch()(`${url}/services/node/outbox?page=true&page-num=3`));
    expect(status).toBe(200);
    expect(json.principal).toEqual({ kind: 'signature', actor: service.serviceId, keyId: service.keyId });
  });

  it('verifies a signed POST against its Content-Digest', async () => {
    const url = await receive();
    const activity = { type: 'Follow', actor: service.serviceId };
    const response = await signedFetch()(`${url}/services/node/inbox`, {
      method: 'POST',
      body: JSON.stringify(activity),
      headers: { 'content-type': 'application/activity+json' },
    });
    const { status, json } = await answer(response);
    expect(status).toBe(200);
    expect(json.body).toEqual(activity);
    expect(json.principal.actor).toBe(service.serviceId);
  });

  it.each(['P-256', 'P-384'] as const)('verifies a %s signature (ECDSA, r || s)', async (type) => {
    const ecKey = KeyPair.generate(type);
    service.publish(ecKey);
    const url = await receive();
    const response = await signedFetch(ecKey)(`${url}/inbox`, { method: 'POST', body: '{"a":1}', headers: JSON_TYPE });
    expect((await answer(response)).status).toBe(200);
  });

  it('refuses a body that does not match its Content-Digest', async () => {
    const url = await receive();
    const response = await craft(`${url}/inbox`, {
      body: '{"a":2}',
      headers: { 'content-digest': contentDigestHeader(Buffer.from('{"a":1}')) },
      components: ['@method', '@target-uri', 'content-digest'],
    });
    const { status, json } = await answer(response);
    expect(status).toBe(401);
    expect(json.message).toBe('Content-Digest mismatch: the sha-256 digest does not match the request body');
  });

  it('refuses a body whose digest the signature does not cover', async () => {
    const url = await receive();
    const { status, json } = await answer(
      await craft(`${url}/inbox`, { body: '{}', components: ['@method', '@target-uri'] }),
    );
    expect(status).toBe(401);
    expect(json.message).toBe('the signature must cover content-digest (covered: @method @target-uri)');
  });

  it('refuses a signature that covers the path but not the query', async () => {
    const url = await receive();
    const response = await craft(`${url}/outbox?page=2`, { components: ['@method', '@path'] });
    expect((await answer(response)).json.message).toBe('the signature must cover @query (covered: @method @path)');
    const covered = await craft(`${url}/outbox?page=2`, { components: ['@method', '@path', '@query', '@authority'] });
    expect((await answer(covered)).status).toBe(200);
  });

  it('refuses a signature without @method, without keyid or without created', async () => {
    const url = await receive();
    expect((await answer(await craft(`${url}/outbox`, { components: ['@target-uri'] }))).json.message).toBe(
      'the signature must cover @method (covered: @target-uri)',
    );
    expect(
      (
        await answer(
          await craft(`${url}/outbox`, { components: ['@method', '@target-uri'], params: { keyid: undefined } }),
        )
      ).json.message,
    ).toBe('the RFC 9421 signature has no keyid');
    expect(
      (
        await answer(
          await craft(`${url}/outbox`, { components: ['@method', '@target-uri'], params: { created: undefined } }),
        )
      ).json.message,
    ).toBe('the RFC 9421 signature has no created time');
  });

  it('holds created to the window the Date of a draft-cavage request is held to, and honours expires', async () => {
    const url = await receive({ dateWindowMs: 60_000 });
    const stale = await answer(await signedFetch(key, -61_000)(`${url}/outbox`));
    expect(stale.status).toBe(401);
    expect(stale.json.message).toBe('stale signature created time: 61s old, the limit is 60s');
    const future = await answer(await signedFetch(key, 61_000)(`${url}/outbox`));
    expect(future.json.message).toBe('signature created time is 61s in the future, the limit is 60s');
    const expired = await craft(`${url}/outbox`, {
      components: ['@method', '@target-uri'],
      params: { expires: Math.floor(clock.t / 1000) - 1 },
    });
    expect((await answer(expired)).json.message).toBe('the signature has expired');
  });

  it('refuses an alg that is not the key’s and a signature by another key', async () => {
    const url = await receive();
    const wrongAlg = await craft(`${url}/outbox`, {
      components: ['@method', '@target-uri'],
      params: { alg: 'ecdsa-p256-sha256' },
    });
    expect((await answer(wrongAlg)).json.message).toBe(
      `signature alg "ecdsa-p256-sha256" does not fit the Ed25519 key ${service.keyId}`,
    );
    const forged = await answer(await signedFetch(KeyPair.generate('Ed25519'))(`${url}/outbox`));
    expect(forged.status).toBe(401);
    expect(forged.json.message).toBe(`invalid signature: it does not verify with key ${service.keyId}`);
  });

  it('does not verify a @target-uri signed for another scheme (the receiver is told its own)', async () => {
    const url = await receive({ targetScheme: 'https' });
    const { status, json } = await answer(await signedFetch()(`${url}/outbox`));
    expect(status).toBe(401);
    expect(json.message).toBe(`invalid signature: it does not verify with key ${service.keyId}`);
  });

  it('answers malformed fields with a 401 naming the problem', async () => {
    const url = await receive();
    const cases: [Record<string, string>, string][] = [
      [
        { 'signature-input': 'sig1=("@method"', signature: 'sig1=:AA==:' },
        'signature-input is not a structured dictionary',
      ],
      [{ 'signature-input': 'sig1=("@method");created=1', signature: 'sig2=:AA==:' }, 'Signature has no member sig1'],
      [
        { 'signature-input': 'sig1=("@method");created=1', signature: 'sig1="AA=="' },
        'Signature sig1 is not a byte sequence',
      ],
      [{ 'signature-input': 'sig1=("@method" "@method")', signature: 'sig1=:AA==:' }, 'lists a component twice'],
      [
        { 'signature-input': 'sig1=("@method");created=1.5', signature: 'sig1=:AA==:' },
        'created of sig1 must be an integer',
      ],
      [{ 'signature-input': 'sig1="@method"', signature: 'sig1=:AA==:' }, 'Signature-Input sig1 is not an inner list'],
    ];
    for (const [headers, message] of cases) {
      const { status, json } = await answer(await fetch(`${url}/outbox`, { headers }));
      expect(status, message).toBe(401);
      expect(json.message).toContain('malformed RFC 9421 signature: ');
      expect(json.message).toContain(message);
    }
  });

  it('still verifies draft-cavage requests on the same authenticator', async () => {
    const url = await receive();
    const cavage = createSignedFetch(createRequestSigner({ keyId: service.keyId, key, now: () => new Date(clock.t) }));
    const { status, json } = await answer(
      await cavage(`${url}/inbox`, { method: 'POST', body: '{"b":1}', headers: JSON_TYPE }),
    );
    expect(status).toBe(200);
    expect(json.digest).toMatch(/^SHA-256=/);
  });
});

describe('RFC 9421 rules on requests built by hand', () => {
  const key = KeyPair.generate('Ed25519');
  const serviceId = 'https://a.example/services/node';
  const keyId = `${serviceId}/keys/main-key`;
  const keyDocument = servicePublicKeyDocument({ serviceId, key });
  const documents = new Map<string, unknown>([
    [keyId, keyDocument],
    [serviceId, { id: serviceId, type: 'Service', publicKey: keyDocument }],
  ]);
  const authenticate = createSignatureAuthenticator({ fetchJson: async (url) => documents.get(url) });
  const created = () => Math.floor(Date.now() / 1000);

  async function fieldsFor(label: string, components: string[], headers: Record<string, string>, signer = key) {
    const input = signatureInput(components, { created: created(), keyid: keyId });
    return signMessage({ method: 'GET', url: 'https://b.example/outbox', headers }, input, signer, 'Ed25519', label);
  }

  it('reads only the first signature of Signature-Input', async () => {
    const host = { host: 'b.example' };
    const good = await fieldsFor('good', ['@method', '@target-uri'], host);
    const forged = await fieldsFor('forged', ['@method', '@target-uri'], host, KeyPair.generate('Ed25519'));
    const request = (first: typeof good, second: typeof good) => ({
      method: 'GET',
      originalUrl: '/outbox',
      headers: {
        ...host,
        'signature-input': `${first['Signature-Input']}, ${second['Signature-Input']}`,
        signature: `${first.Signature}, ${second.Signature}`,
      },
    });
    expect(await authenticate(request(good, forged))).toEqual({ actor: serviceId, keyId });
    await expect(authenticate(request(forged, good))).rejects.toThrow(
      `invalid signature: it does not verify with key ${keyId}`,
    );
  });

  it('refuses a covered content-digest the request lacks, and a covered authority without a Host', async () => {
    const digest = await fieldsFor('sig1', ['@method', '@target-uri', 'content-digest'], {
      host: 'b.example',
      'content-digest': contentDigestHeader(Buffer.alloc(0)),
    });
    const withoutDigest = {
      host: 'b.example',
      'signature-input': digest['Signature-Input'],
      signature: digest.Signature,
    };
    await expect(authenticate({ method: 'GET', originalUrl: '/outbox', headers: withoutDigest })).rejects.toThrow(
      'the signature covers content-digest, which the request lacks',
    );
    const authority = await fieldsFor('sig1', ['@method', '@path', '@authority'], { host: 'b.example' });
    const withoutHost = { 'signature-input': authority['Signature-Input'], signature: authority.Signature };
    await expect(authenticate({ method: 'GET', originalUrl: '/outbox', headers: withoutHost })).rejects.toThrow(
      'the signature covers the authority, but the request has no Host',
    );
  });

  it('answers a component the base cannot be built from with a 401 naming it', async () => {
    const fields = await fieldsFor('sig1', ['@method', '@target-uri'], { host: 'b.example' });
    const input = fields['Signature-Input'].replace('"@target-uri"', '"@target-uri" "x-missing"');
    await expect(
      authenticate({
        method: 'GET',
        originalUrl: '/outbox',
        headers: { host: 'b.example', 'signature-input': input, signature: fields.Signature },
      }),
    ).rejects.toThrow('the signature covers x-missing, which the request lacks');
    const unknown = fields['Signature-Input'].replace('"@target-uri"', '"@target-uri" "@unheard-of"');
    await expect(
      authenticate({
        method: 'GET',
        originalUrl: '/outbox',
        headers: { host: 'b.example', 'signature-input': unknown, signature: fields.Signature },
      }),
    ).rejects.toThrow('the signature base cannot be built: Unsupported component "@unheard-of"');
  });
});
