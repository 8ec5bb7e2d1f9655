import { Readable } from 'node:stream';
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyPair } from '../crypto/index.js';
import type { OutboundRequest } from '../http/principal.js';
import {
  startPeer,
  startReceiver,
  serviceOn,
  type Peer,
  type Receiver,
  type ServiceFixture,
} from './loopback.test-helpers.js';
import { axiosSigningInterceptor, createSignedFetch } from './outbound.js';
import { createRequestSigner } from './signer.js';
import { createSignatureAuthenticator } from './verifier.js';

let peer: Peer;
let receiver: Receiver;
let service: ServiceFixture;
let key: KeyPair;

beforeAll(async () => {
  peer = await startPeer();
  key = KeyPair.generate('Ed25519');
  service = serviceOn(peer, 'sender', key);
  receiver = await startReceiver(createSignatureAuthenticator());
});
afterAll(async () => {
  await receiver.close();
  await peer.close();
});

function signedAxios() {
  const client = axios.create({ baseURL: receiver.url });
  client.interceptors.request.use(axiosSigningInterceptor(createRequestSigner({ keyId: service.keyId, key })));
  return client;
}

describe('axios request interceptor', () => {
  it('signs a GET including baseURL and params in the request target', async () => {
    const response = await signedAxios().get('/services/node/outbox', { params: { page: true, 'page-num': 2 } });
    expect(response.status).toBe(200);
    expect(response.data.principal).toEqual({ kind: 'signature', actor: service.serviceId, keyId: service.keyId });
  });

  it('signs a POST of a plain object by serialising it itself, so the Digest covers the bytes sent', async () => {
    const activity = { type: 'Offer', actor: service.serviceId, object: { items: [1, 2, 3] } };
    const response = await signedAxios().post('/services/node/inbox', activity);
    expect(response.status).toBe(200);
    expect(response.data.body).toEqual(activity);
    expect(response.data.digest).toMatch(/^SHA-256=/);
  });

  it('signs string and byte bodies unchanged', async () => {
    const client = signedAxios();
    const text = await client.post('/inbox', '{"a":1}', { headers: { 'content-type': 'application/json' } });
    expect(text.data.body).toEqual({ a: 1 });
    const bytes = await client.post('/inbox', Buffer.from('{"b":2}'), {
      headers: { 'content-type': 'application/json' },
    });
    expect(bytes.data.body).toEqual({ b: 2 });
  });

  it('refuses bodies it cannot sign up front', async () => {
    await expect(signedAxios().post('/inbox', Readable.from(['x']))).rejects.toThrow('cannot sign this request body');
  });

  it('is rejected by the receiver when another key signs (the interceptor really signs)', async () => {
    const client = axios.create({ baseURL: receiver.url, validateStatus: () => true });
    client.interceptors.request.use(
      axiosSigningInterceptor(createRequestSigner({ keyId: service.keyId, key: KeyPair.generate('Ed25519') })),
    );
    expect((await client.get('/x')).status).toBe(401);
  });
});

describe('signed fetch', () => {
  it('hands the signer the absolute URL, method and exact body, and sends the headers it returns', async () => {
    const seen: OutboundRequest[] = [];
    const signer = createRequestSigner({ keyId: service.keyId, key });
    const fetchSigned = createSignedFetch(async (request) => {
      seen.push(request);
      return signer(request);
    });
    const response = await fetchSigned(`${receiver.url}/inbox?x=1`, {
      method: 'post',
      body: new URLSearchParams({ a: 'b c' }),
    });
    expect(response.status).toBe(200);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url).toBe(`${receiver.url}/inbox?x=1`);
    expect(seen[0]?.body?.toString()).toBe('a=b+c');
    expect(seen[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=utf-8');
  });

  it('is refused when the receiver did not keep the bytes of the body (no parser for its type)', async () => {
    const fetchSigned = createSignedFetch(createRequestSigner({ keyId: service.keyId, key }));
    const response = await fetchSigned(`${receiver.url}/inbox`, {
      method: 'POST',
      body: 'plain text',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { message: string }).message).toContain('was not captured');
  });
});
