import { multibaseMultihash } from '@anchor/common/encoding';
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

/** GET /sidetree/v1/identifiers/<did> in every identifier form, and its errors. */
describe('resolution', () => {
  let node: TestNode;
  let did: TestDid;
  let metadata: Record<string, any>;
  let didHost: string;

  beforeAll(async () => {
    node = await startTestNode();
    didHost = new URL(node.url).host.replace(':', '%3A');
    did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    metadata = metadataOf(await waitPublished(node.url, did.did));
  });
  afterAll(async () => {
    await node.stop();
  });

  it('publishes canonicalId, equivalentId in order, versionId and the posted request', () => {
    const anchorHash = metadata.versionId as string;
    expect(metadata.canonicalId).toBe(`did:node:${anchorHash}:${did.suffix}`);
    expect(metadata.equivalentId).toHaveLength(3);
    expect(metadata.equivalentId[0]).toBe(metadata.canonicalId);
    expect(metadata.equivalentId[1]).toMatch(
      new RegExp(`^did:node:hl:${anchorHash}:uoQ-[A-Za-z0-9_-]+:${did.suffix}$`),
    );
    expect(metadata.equivalentId[2]).toBe(`did:node:https:${didHost}:${anchorHash}:${did.suffix}`);
    expect(metadata.method.published).toBe(true);
    const [published] = metadata.method.publishedOperations as Array<Record<string, unknown>>;
    expect(Buffer.from(published!.operationRequest as string, 'base64url').toString()).toBe(
      JSON.stringify(JSON.parse(Buffer.from(published!.operationRequest as string, 'base64url').toString())),
    );
    expect(JSON.parse(Buffer.from(published!.operationRequest as string, 'base64url').toString())).toEqual(
      did.created.request,
    );
    expect(published).toMatchObject({
      type: 'create',
      canonicalReference: anchorHash,
      transactionNumber: expect.any(Number),
      protocolVersion: 0,
    });
  });

  it('resolves every did:node form of the DID to the same document', async () => {
    const forms = [did.did, ...(metadata.equivalentId as string[]), `did:node:https:${didHost}:uAAA:${did.suffix}`];
    const documents = await Promise.all(
      forms.map(async (form) => {
        const result = await resolveDid(node.url, form);
        expect(result.status, `${form}: ${result.text}`).toBe(200);
        const document = result.body.didDocument as { id: string };
        expect(document.id).toBe(form);
        // The document is rendered under the id it was asked for; apart from that it is the same.
        return JSON.parse(JSON.stringify(document).replaceAll(form, 'did:requested')) as object;
      }),
    );
    for (const document of documents) expect(document).toEqual(documents[0]);
  });

  it('resolves a long-form DID before it is anchored, and the anchored one after', async () => {
    const other = new TestDid(node.url);
    const early = await resolveDid(node.url, other.created.longFormDid);
    expect(early.status).toBe(200);
    expect(metadataOf(early).method.published).toBe(false);
    expect(metadataOf(early).equivalentId).toContain(other.did);
    expect((early.body.didDocument as { id: string }).id).toBe(other.created.longFormDid);

    const late = await resolveDid(node.url, did.created.longFormDid);
    expect(metadataOf(late).canonicalId).toBe(metadata.canonicalId);
  });

  it('resolves the did:web scid view, with alsoKnownAs naming the did:node identifiers', async () => {
    const webDid = `did:web:${didHost}:scid:${did.suffix}`;
    const viaIdentifiers = await resolveDid(node.url, webDid);
    expect(viaIdentifiers.status).toBe(200);
    const document = viaIdentifiers.body.didDocument as {
      id: string;
      alsoKnownAs: string[];
      verificationMethod: Array<{ id: string; controller: string }>;
    };
    expect(document.id).toBe(webDid);
    expect(document.verificationMethod[0]).toMatchObject({ id: `${webDid}#key-1`, controller: webDid });
    expect(document.alsoKnownAs[0]).toBe(metadata.canonicalId);
    expect(document.alsoKnownAs).toEqual(expect.arrayContaining(metadata.equivalentId as string[]));
    const plain = await fetch(`${node.url}/scid/${did.suffix}/did.json`);
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual(document);
  });

  describe('errors', () => {
    const expectStatus = async (
      target: string,
      status: number,
      pattern: RegExp,
      query: Record<string, string> = {},
    ) => {
      const result = await resolveDid(node.url, target, query);
      expect(result.status, result.text).toBe(status);
      expect(result.body.message).toMatch(pattern);
    };

    it('404 for an unknown DID and for a made-up anchor hash', async () => {
      await expectStatus(`did:node:uAAA:${multibaseMultihash('nobody').slice(1)}`, 404, /not found/);
      await expectStatus(`did:node:${multibaseMultihash('made up')}:${did.suffix}`, 404, /not an anchor of DID suffix/);
      const unknownScid = await fetch(`${node.url}/scid/${multibaseMultihash('nobody').slice(1)}/did.json`);
      expect(unknownScid.status).toBe(404);
    });

    it('400 for malformed identifiers, other methods and other did:web hosts', async () => {
      await expectStatus('did:node:uAAA:not-a-suffix', 400, /invalid suffix/);
      await expectStatus('did:other:abc', 400, /is not a did:node DID/);
      await expectStatus(`did:web:example.com:scid:${did.suffix}`, 400, /not served by this node/);
    });

    it('400 naming the reason for bad versionId and versionTime values', async () => {
      await expectStatus(did.did, 400, /is not a valid versionId/, {
        versionId: multibaseMultihash('no such version'),
      });
      await expectStatus(did.did, 400, /version time/, { versionTime: 'yesterday' });
      await expectStatus(did.did, 400, /no operations found for version time/, { versionTime: '2001-01-01T00:00:00Z' });
      await expectStatus(did.did, 400, /cannot be used together/, {
        versionId: metadata.versionId as string,
        versionTime: '2001-01-01T00:00:00Z',
      });
    });
  });
});

describe('the unpublished view', () => {
  const nodes: TestNode[] = [];
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  });
  const start = async (args: string[]) => {
    const node = await startTestNode({ args: ['--batch-writer-timeout', '3s', ...args] });
    nodes.push(node);
    return node;
  };

  it('shows only the configured operation types before anchoring', async () => {
    const node = await start(['--unpublished-operation-store-operation-types', 'update']);
    const did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    expect((await resolveDid(node.url, did.did)).status).toBe(404);
    await waitPublished(node.url, did.did);
    expect((await postOperation(node.url, did.update('key-2'))).status).toBe(200);
    const early = await resolveDid(node.url, did.did);
    expect((early.body.didDocument as { verificationMethod: unknown[] }).verificationMethod).toHaveLength(2);
    expect(metadataOf(early).method.publishedOperations).toHaveLength(1);
  });

  it('forgets an unanchored operation after its lifetime, until it is anchored', async () => {
    const node = await start(['--unpublished-operation-lifetime', '300ms']);
    const did = new TestDid(node.url);
    expect((await postOperation(node.url, did.created.request)).status).toBe(200);
    expect((await resolveDid(node.url, did.did)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await resolveDid(node.url, did.did)).status).toBe(404);
    await waitPublished(node.url, did.did);
  });

  it('shows nothing before anchoring when disabled', async () => {
    const node = await start(['--enable-unpublished-operation-store=false']);
    const did = new TestDid(node.url);
    const accepted = await postOperation(node.url, did.created.request);
    expect(accepted.status).toBe(200);
    expect(metadataOf(accepted).method.published).toBe(false);
    expect((await resolveDid(node.url, did.did)).status).toBe(404);
    await waitPublished(node.url, did.did);
  });
});
