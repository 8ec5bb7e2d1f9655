import { KeyPair } from '@anchor/common/crypto';
import { canonicalize } from '@anchor/common/encoding';
import { addPublicKeys, createRequest, documentKey, serializeRequest, updateRequest } from '@anchor/sidetree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  metadataOf,
  postOperation,
  resolveDid,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';

/**
 * POST /sidetree/v1/operations on an in-process node: what is accepted answers with the unpublished view at
 * once; everything refused is a 400 naming the problem and leaves no trace in the queue.
 */
describe('operation intake', () => {
  let node: TestNode;

  beforeAll(async () => {
    // No batch is cut while these tests run, so the queue holds exactly what was accepted.
    node = await startTestNode({ args: ['--batch-writer-timeout', '1h'] });
  });
  afterAll(async () => {
    await node.stop();
  });

  const queuedCount = () => node.server.services.stores.queued.count();

  it('accepts a create and answers with the unpublished resolution result', async () => {
    const did = new TestDid(node.url);
    const accepted = await postOperation(node.url, did.created.request);
    expect(accepted.status).toBe(200);
    expect(accepted.body['@context']).toBe('https://w3id.org/did-resolution/v1');
    expect((accepted.body.didDocument as { id: string }).id).toBe(`did:node:uAAA:${did.suffix}`);
    const metadata = metadataOf(accepted);
    expect(metadata.canonicalId).toBeUndefined();
    expect(metadata.equivalentId).toEqual([
      `did:node:https:${new URL(node.url).host.replace(':', '%3A')}:uAAA:${did.suffix}`,
    ]);
    expect(metadata.method.published).toBe(false);

    const resolved = await resolveDid(node.url, did.did);
    expect(resolved.status).toBe(200);
    expect(metadataOf(resolved).method.published).toBe(false);
  });

  it('answers a repeated create the same way and queues it once', async () => {
    const did = new TestDid(node.url);
    const first = await postOperation(node.url, did.created.request);
    const before = await queuedCount();
    const again = await postOperation(node.url, did.created.request);
    expect(again.status).toBe(200);
    expect(again.body.didDocument).toEqual(first.body.didDocument);
    expect(await queuedCount()).toBe(before);
    expect((await node.server.services.stores.queued.query({ keyPrefix: `${did.suffix}:` })).items).toHaveLength(1);
  });

  it('answers a create of an already anchored DID with its current state', async () => {
    const anchoring = await startTestNode();
    try {
      const did = new TestDid(anchoring.url);
      await postOperation(anchoring.url, did.created.request);
      await waitPublished(anchoring.url, did.did);
      const again = await postOperation(anchoring.url, did.created.request);
      expect(again.status).toBe(200);
      expect(metadataOf(again).method.published).toBe(true);
      expect(await anchoring.server.services.stores.queued.count()).toBe(0);
    } finally {
      await anchoring.stop();
    }
  });

  describe('refuses with 400 naming the problem', () => {
    const rejected = async (body: Parameters<typeof postOperation>[1], pattern: RegExp, contentType?: string) => {
      const before = await queuedCount();
      const answer = await postOperation(node.url, body, contentType);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.message).toMatch(pattern);
      expect(await queuedCount()).toBe(before);
      return answer;
    };

    it('an empty body', async () => {
      await rejected('', /request body must be a Sidetree operation/);
    });

    it('a body that is not JSON, whatever its content type', async () => {
      await rejected('{not json', /not valid JSON/, 'text/plain');
      await rejected('{not json', /not valid JSON|malformed JSON/);
    });

    it('a request that is too large', async () => {
      const did = new TestDid(node.url);
      const padded = { ...did.created.request, padding: 'x'.repeat(3000) };
      await rejected(JSON.stringify(padded), /too large: \d+ bytes exceeds the maximum of 2500/);
    });

    it('an unknown operation type and unknown members', async () => {
      await rejected(JSON.stringify({ type: 'rotate' }), /operation type 'rotate' is not supported/);
      const did = new TestDid(node.url);
      await rejected(JSON.stringify({ ...did.created.request, extra: 1 }), /extra/);
    });

    it('an anchor origin the node does not allow', async () => {
      const did = new TestDid('https://elsewhere.example.com');
      await rejected(did.created.request, /anchor origin 'https:\/\/elsewhere.example.com' is not allowed/);
    });

    it('a bad signature', async () => {
      const did = new TestDid(node.url);
      await postOperation(node.url, did.created.request);
      const update = did.update('key-2', false) as { signedData: string };
      const [header, payload] = update.signedData.split('.');
      const forged = { ...update, signedData: `${header}.${payload}.${Buffer.alloc(64, 7).toString('base64url')}` };
      await rejected(serializeRequest(forged as never), /signature/i);
    });

    it('an update for a DID this node does not know', async () => {
      const did = new TestDid(node.url);
      await rejected(did.update('key-2', false), /is not known to this node/);
    });

    it('a reveal value that is not the current commitment', async () => {
      const did = new TestDid(node.url);
      expect((await postOperation(node.url, did.created.request)).status).toBe(200);
      const stranger = KeyPair.generate('Ed25519');
      const wrong = updateRequest({
        didSuffix: did.suffix,
        updateKey: stranger,
        nextUpdateKey: KeyPair.generate('Ed25519'),
        patches: [addPublicKeys(documentKey('key-9', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
      });
      await rejected(wrong, /reveal value does not match the current update commitment/);
      // The recovery key does not open the update chain either.
      const recoveryAsUpdate = updateRequest({
        didSuffix: did.suffix,
        updateKey: did.recoveryKey,
        nextUpdateKey: KeyPair.generate('Ed25519'),
        patches: [addPublicKeys(documentKey('key-9', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
      });
      await rejected(recoveryAsUpdate, /reveal value does not match the current update commitment/);
    });

    it('a second, different operation revealing a commitment already spent by a pending one', async () => {
      const did = new TestDid(node.url);
      await postOperation(node.url, did.created.request);
      const keyBefore = did.updateKey;
      expect((await postOperation(node.url, did.update('key-2'))).status).toBe(200);
      const rival = updateRequest({
        didSuffix: did.suffix,
        updateKey: keyBefore,
        nextUpdateKey: KeyPair.generate('Ed25519'),
        patches: [addPublicKeys(documentKey('key-3', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
      });
      await rejected(rival, /already reveals this update commitment/);
    });

    it('any operation on a deactivated DID', async () => {
      const did = new TestDid(node.url);
      await postOperation(node.url, did.created.request);
      expect((await postOperation(node.url, did.deactivate())).status).toBe(200);
      await rejected(did.update('key-2', false), /is deactivated/);
      await rejected(did.recover(node.url, 'key-2', false), /is deactivated/);
    });
  });

  it('accepts an update at once, visible before anchoring, and repeats it idempotently', async () => {
    const did = new TestDid(node.url);
    await postOperation(node.url, did.created.request);
    const update = did.update('key-2');
    const accepted = await postOperation(node.url, update);
    expect(accepted.status).toBe(200);
    const again = await postOperation(node.url, update);
    expect(again.status).toBe(200);
    const resolved = await resolveDid(node.url, did.did);
    const ids = (resolved.body.didDocument as { verificationMethod: Array<{ id: string }> }).verificationMethod.map(
      (method) => method.id,
    );
    expect(ids).toEqual([`${did.did}#key-1`, `${did.did}#key-2`]);
  });

  it('accepts the JSON in any formatting: the canonical request is what is stored', async () => {
    const recovery = KeyPair.generate('Ed25519');
    const created = createRequest({
      recoveryKey: recovery,
      updateKey: KeyPair.generate('Ed25519'),
      anchorOrigin: node.url,
      patches: [addPublicKeys(documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
    });
    const pretty = JSON.stringify(JSON.parse(canonicalize(created.request)), null, 2);
    const answer = await postOperation(node.url, pretty, 'application/ld+json');
    expect(answer.status).toBe(200);
    expect((answer.body.didDocument as { id: string }).id).toBe(created.did);
  });
});
