import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postOperation,
  resolveDid,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';

/**
 * The Sidetree endpoints, served as the HTTP kit's fast routes, answer like the kit's routes: same bodies,
 * errors, security headers and metrics; the token rules apply; signed requests go through express.
 */
describe('Sidetree endpoints on the fast path', () => {
  let node: TestNode;
  let did: TestDid;

  beforeAll(async () => {
    // Writes need the admin token, reads are open.
    node = await startTestNode({
      args: [
        '--auth-tokens-def',
        '/sidetree/v1/operations||admin',
        '--auth-tokens',
        'admin=s3cret',
        '--body-limit',
        '3kb',
      ],
    });
    did = new TestDid(node.url);
    const accepted = await fetch(`${node.url}/sidetree/v1/operations`, {
      method: 'POST',
      body: JSON.stringify(did.created.request),
      headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret' },
    });
    expect(accepted.status).toBe(200);
    await waitPublished(node.url, did.did);
  });
  afterAll(async () => {
    await node.stop();
  });

  it("sends the kit's security headers and content type", async () => {
    const fast = await fetch(`${node.url}/sidetree/v1/identifiers/${did.did}`);
    const viaExpress = await fetch(`${node.url}/healthcheck`);
    expect(fast.status).toBe(200);
    expect(fast.headers.get('content-type')).toBe('application/did+ld+json; charset=utf-8');
    for (const name of [
      'x-content-type-options',
      'x-frame-options',
      'content-security-policy',
      'strict-transport-security',
    ]) {
      expect(fast.headers.get(name), name).toBe(viaExpress.headers.get(name));
    }
  });

  it('maps errors as the kit does: status, {"message"} body, headers', async () => {
    const unknown = await resolveDid(node.url, 'did:node:uAAA:nonsense');
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body)).toEqual(['message']);
    const twice = await fetch(`${node.url}/sidetree/v1/identifiers/${did.did}?versionTime=a&versionTime=b`);
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { message: string }).message).toBe(
      "query parameter 'versionTime' is given more than once",
    );
  });

  it('applies the token rules: 401 without the token', async () => {
    const answer = await postOperation(node.url, new TestDid(node.url).created.request);
    expect(answer.status).toBe(401);
    expect(answer.body.message).toMatch(/credentials required/);
  });

  it('leaves signed requests to express, which verifies the signature', async () => {
    const signed = await fetch(`${node.url}/sidetree/v1/identifiers/${did.did}`, {
      headers: {
        signature: `keyId="${node.url}/services/node/keys/none",algorithm="Sign",headers="(request-target) date",signature="AAAA"`,
        date: new Date().toUTCString(),
      },
    });
    // The fast path would have answered 200; express's signature check refuses the made-up key.
    expect(signed.status).toBe(401);
  });

  it('refuses a body beyond the limit with 413', async () => {
    const open = await startTestNode({ args: ['--body-limit', '3kb'] });
    try {
      const tooLarge = await postOperation(open.url, 'x'.repeat(4000));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.message).toMatch(/exceeds the limit of 3072 bytes/);
    } finally {
      await open.stop();
    }
  });

  it("records requests in the kit's http_request_duration_seconds series", async () => {
    await resolveDid(node.url, did.did);
    const metrics = await (await fetch(`${node.url}/metrics`)).text();
    expect(metrics).toMatch(
      /node_http_request_duration_seconds_count\{method="GET",route="\/sidetree\/v1\/identifiers\/:did",status="200"\} [1-9]/,
    );
  });
});
