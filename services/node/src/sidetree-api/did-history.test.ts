import { waitFor } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DidHistory } from '../resolution/did-history.js';
import { metadataOf, postOperation, resolveDid, startTestNode, TestDid, type TestNode } from '../testing/test-node.js';

async function history(url: string, did: string): Promise<{ status: number; body: DidHistory & { message?: string } }> {
  const response = await fetch(`${url}/sidetree/v1/identifiers/${did}/history`);
  return { status: response.status, body: (await response.json()) as DidHistory & { message?: string } };
}

/** Waits until the node lists this many published operations for the DID. */
async function publishedHistory(url: string, did: string, count: number): Promise<DidHistory> {
  return waitFor(
    async () => {
      const answer = await history(url, did);
      return answer.status === 200 && answer.body.operations.filter((op) => op.published).length >= count
        ? answer.body
        : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 50, description: `${did} with ${count} published operations` },
  );
}

/** GET /sidetree/v1/identifiers/<did>/history: a DID's operations with their anchors, each version openable. */
describe('DID history', () => {
  let node: TestNode;
  let did: TestDid;
  let full: DidHistory;

  beforeAll(async () => {
    node = await startTestNode();
    did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    await publishedHistory(node.url, did.did, 1);
    expect((await postOperation(node.url, did.update('key-2'))).status).toBe(200);
    await publishedHistory(node.url, did.did, 2);
    expect((await postOperation(node.url, did.recover(node.url, 'key-3'))).status).toBe(200);
    await publishedHistory(node.url, did.did, 3);
    expect((await postOperation(node.url, did.deactivate())).status).toBe(200);
    full = await publishedHistory(node.url, did.did, 4);
  }, 90_000);
  afterAll(async () => {
    await node.stop();
  });

  it('lists every operation in order with its anchor, versionId, canonical id changes and the deactivation', () => {
    expect(full.didSuffix).toBe(did.suffix);
    expect(full.operations.map((op) => op.type)).toEqual(['create', 'update', 'recover', 'deactivate']);
    const [create, update, recover, deactivate] = full.operations as [
      DidHistory['operations'][0],
      DidHistory['operations'][0],
      DidHistory['operations'][0],
      DidHistory['operations'][0],
    ];
    for (const op of full.operations) {
      expect(op.published).toBe(true);
      expect(op.applied).toBe(true);
      expect(op.versionId).toBe(op.anchor?.canonicalReference);
      expect(op.anchor?.canonicalReference).toMatch(/^uEi/);
    }
    // Four operations, four anchors (one operation of a DID per batch).
    expect(new Set(full.operations.map((op) => op.versionId)).size).toBe(4);
    expect(create.canonicalIdChanged).toBe(true);
    expect(create.canonicalId).toBe(`did:node:${create.versionId}:${did.suffix}`);
    expect(update.canonicalIdChanged).toBe(false);
    expect(update.canonicalId).toBe(create.canonicalId);
    expect(recover.canonicalIdChanged).toBe(true);
    expect(recover.canonicalId).toBe(`did:node:${recover.versionId}:${did.suffix}`);
    expect(full.operations.map((op) => op.deactivated)).toEqual([false, false, false, true]);
    expect(deactivate.anchor?.transactionNumber).toBeGreaterThan(create.anchor?.transactionNumber ?? Infinity);
    expect(JSON.parse(Buffer.from(create.operationRequest, 'base64url').toString())).toEqual(did.created.request);
  });

  it("opens each version with its versionId: the resolution's versionId and canonical id are the entry's", async () => {
    for (const op of full.operations.slice(0, 3)) {
      const version = await resolveDid(node.url, did.did, { versionId: op.versionId as string });
      expect(version.status).toBe(200);
      expect(metadataOf(version).versionId).toBe(op.versionId);
      expect(metadataOf(version).canonicalId).toBe(op.canonicalId);
    }
    const last = await resolveDid(node.url, did.did, { versionId: full.operations[3]?.versionId as string });
    expect(metadataOf(last).deactivated).toBe(true);
  });

  it('answers the same history for the canonical form', async () => {
    const canonical = await history(node.url, full.operations[2]?.canonicalId as string);
    expect(canonical.status).toBe(200);
    expect(canonical.body).toEqual(full);
  });

  it('lists an accepted operation before its anchor as unpublished', async () => {
    const fresh = new TestDid(node.url);
    expect((await postOperation(node.url, fresh.created.request)).status).toBe(200);
    const answer = await history(node.url, fresh.did);
    expect(answer.status).toBe(200);
    // Either still queued (unpublished, with the time this node took it) or already anchored by the batch timer.
    const [op] = answer.body.operations;
    expect(op?.type).toBe('create');
    if (op?.published === false) {
      expect(op.receivedTime).toEqual(expect.any(Number));
      expect(op.anchor).toBeUndefined();
      expect(op.versionId).toBeUndefined();
    } else expect(op?.versionId).toMatch(/^uEi/);
  });

  it('answers 404 for a DID the node does not know and 400 for a malformed one', async () => {
    const unknown = await history(node.url, new TestDid(node.url).did);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/not found/);
    const malformed = await history(node.url, 'did:node:uAAA:not-a-suffix');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toEqual(expect.any(String));
    const web = await history(node.url, 'did:web:example.com');
    expect(web.status).toBe(400);
  });
});
