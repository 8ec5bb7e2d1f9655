import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, startTestNode, TestDid, type TestNode } from '../src/testing/test-node.js';

/**
 * What an attacker can send a node over HTTP without any credential: malformed URLs, requests JSON.parse
 * reads differently from other parsers, and signed requests whose keyId points into the node's network.
 * Each is a clear 4xx, and none reaches an address the node must not call.
 */
describe('hostile input on a bare node', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node.stop();
  });

  it('answers malformed percent-escapes in every parameterised path with 400', async () => {
    const paths = [
      '/sidetree/v1/identifiers/',
      '/scid/',
      '/cas/',
      '/vc/',
      '/services/node/activities/',
      '/services/node/likes/',
      '/services/node/shares/',
      '/services/node/keys/',
    ];
    for (const base of paths) {
      for (const bad of ['%zz', '%', '%ff%fe', '%c0%ae']) {
        const url = `${node.url}${base}${bad}${base === '/scid/' ? '/did.json' : ''}`;
        const answer = await fetch(url);
        expect(answer.status, url).toBe(400);
        expect(await answer.json(), url).toEqual({ message: 'malformed percent-encoding in the request URL' });
      }
    }
  });

  it('refuses a create with a lone surrogate or a duplicate member, naming the member', async () => {
    const create = JSON.stringify(new TestDid(node.url).created.request);
    const surrogate = await postOperation(node.url, create.replace('"crv":"Ed25519"', '"crv":"\\ud800"'));
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.message).toMatch(
      /member delta\.patches\[0\]\.publicKeys\[0\]\.publicKeyJwk\.crv contains a lone UTF-16 surrogate/,
    );
    const duplicate = await postOperation(
      node.url,
      create.replace('"type":"create"', '"type":"create","type":"create"'),
    );
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.message).toMatch(/has the member type more than once/);
  });

  it('refuses a create that adds an unusable key', async () => {
    const did = new TestDid(node.url);
    const create = JSON.stringify(did.created.request);
    const garbage = create.replace(/"x":"[^"]+"/, '"x":"AA"');
    expect(garbage).not.toBe(create);
    const answer = await postOperation(node.url, garbage);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/publicKeyJwk\.x must be 32 bytes for Ed25519, not 1|delta/);
  });

  it('does not fetch a keyId (URL or did:web) that points at private, link-local or plain-http addresses', async () => {
    const activity = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      type: 'Follow',
      actor: 'https://peer.example/services/node',
      object: `${node.url}/services/node`,
    });
    for (const [keyId, reason] of [
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254, a link-local address: refused/],
      ['https://10.0.0.1/key', /10\.0\.0\.1, a private address: refused/],
      // Plain http is allowed to loopback peers of a loopback node, never to public addresses.
      ['http://8.8.8.8/key', /plain http to 8\.8\.8\.8 \(8\.8\.8\.8, a public address\) is refused/],
      // A DID keyId names its document's host just as well: did:web goes through the same guard.
      [
        'did:web:169.254.169.254#key-1',
        /did:web:169\.254\.169\.254: 169\.254\.169\.254 .*a link-local address: refused/,
      ],
      ['did:web:10.0.0.1%3A8443:users:a#key-1', /10\.0\.0\.1, a private address: refused/],
    ] as const) {
      const answer = await fetch(`${node.url}/services/node/inbox`, {
        method: 'POST',
        body: activity,
        headers: {
          'content-type': 'application/activity+json',
          date: new Date().toUTCString(),
          digest: `SHA-512=${createHash('sha512').update(activity).digest('base64')}`,
          signature: `keyId="${keyId}",algorithm="Ed25519",headers="(request-target) date digest",signature="AAAA"`,
        },
      });
      expect(answer.status, keyId).toBe(401);
      expect(((await answer.json()) as { message: string }).message, keyId).toMatch(reason);
    }
  });

  it(
    'fetches keyIds on --allowed-peer-networks, and still refuses other private and link-local addresses',
    { timeout: 30_000 },
    async () => {
      const federated = await startTestNode({ args: ['--allowed-peer-networks', '10.0.0.0/8'] });
      try {
        const activity = JSON.stringify({
          '@context': 'https://www.w3.org/ns/activitystreams',
          type: 'Follow',
          actor: 'https://peer.example/services/node',
          object: `${federated.url}/services/node`,
        });
        const signedPost = async (keyId: string) => {
          const answer = await fetch(`${federated.url}/services/node/inbox`, {
            method: 'POST',
            body: activity,
            headers: {
              'content-type': 'application/activity+json',
              date: new Date().toUTCString(),
              digest: `SHA-512=${createHash('sha512').update(activity).digest('base64')}`,
              signature: `keyId="${keyId}",algorithm="Ed25519",headers="(request-target) date digest",signature="AAAA"`,
            },
          });
          return { status: answer.status, message: ((await answer.json()) as { message: string }).message };
        };
        // Listed: the node tries to connect (nothing is there, so the fetch fails, but not by refusal).
        const listed = await signedPost('https://10.0.0.1/key');
        expect(listed.status).toBe(503);
        expect(listed.message).toMatch(/GET https:\/\/10\.0\.0\.1\/key failed/);
        expect(listed.message).not.toMatch(/refused/);
        expect(await signedPost('https://192.168.1.1/key')).toMatchObject({
          status: 401,
          message: expect.stringMatching(/192\.168\.1\.1, a private address: refused/),
        });
        expect(await signedPost('https://169.254.169.254/latest/meta-data')).toMatchObject({
          status: 401,
          message: expect.stringMatching(/169\.254\.169\.254, a link-local address: refused/),
        });
      } finally {
        await federated.stop();
      }
    },
  );
});
