import {
  canonicalBytes,
  decodeDataUri,
  encodeDataUri,
  hashlinkMetadata,
  multibaseMultihash,
  parseHashlink,
} from '@anchor/common/encoding';
import { freePort } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
 * The observer as the federation uses it: node B processes anchors node A made, fetching the
 * linkset and batch files from A's /cas and checking A's proof against A's did:web document over loopback
 * http — the same path A's own anchors take.
 */
describe('observer', () => {
  let a: TestNode;
  let b: TestNode;
  const did = { value: undefined as unknown as TestDid };
  let createAnchor: string;
  let updateAnchor: string;

  const anchorsOf = async (node: TestNode) =>
    (await node.server.services.observer.records.anchors.query({ limit: 1000 })).items;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestNode(), startTestNode()]);
    did.value = new TestDid(a.url);
    expect((await postOperation(a.url, did.value.created.request)).status).toBe(200);
    await waitPublished(a.url, did.value.did, 1);
    expect((await postOperation(a.url, did.value.update('key-2'))).status).toBe(200);
    const published = await waitPublished(a.url, did.value.did, 2);
    const operations = metadataOf(published).method.publishedOperations as Array<{
      equivalentReferences: string[];
      type: string;
    }>;
    createAnchor = operations[0]!.equivalentReferences[0]!;
    updateAnchor = operations[1]!.equivalentReferences[0]!;
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("processes another node's anchor from its CAS, unprocessed parents first", async () => {
    expect(createAnchor.startsWith('hl:')).toBe(true);
    expect(parseHashlink(updateAnchor).links).toEqual([`${a.url}/cas/${parseHashlink(updateAnchor).resourceHash}`]);
    expect(
      await b.server.services.observer.observer.process({
        hashlink: updateAnchor,
        attributedTo: `${a.url}/services/node`,
      }),
    ).toBe('processed');

    const records = await anchorsOf(b);
    const parent = records.find((entry) => entry.key === parseHashlink(createAnchor).resourceHash)!.value;
    const child = records.find((entry) => entry.key === parseHashlink(updateAnchor).resourceHash)!.value;
    expect(parent.status).toBe('processed');
    expect(child.status).toBe('processed');
    expect(parent.transactionNumber!).toBeLessThan(child.transactionNumber!);

    const onA = await resolveDid(a.url, did.value.did);
    const onB = await resolveDid(b.url, did.value.did);
    expect(onB.status).toBe(200);
    expect(onB.body.didDocument).toEqual(onA.body.didDocument);
    expect(metadataOf(onB).canonicalId).toBe(metadataOf(onA).canonicalId);
    expect(metadataOf(onB).method.published).toBe(true);
    // B keeps what it processed, so it can serve it in turn.
    const served = await fetch(`${b.url}/cas/${parseHashlink(updateAnchor).resourceHash}`);
    expect(served.status).toBe(200);
  });

  it('treats a replayed anchor as a no-op', async () => {
    const before = await anchorsOf(b);
    expect(await b.server.services.observer.observer.process({ hashlink: updateAnchor })).toBe('duplicate');
    await b.server.services.observer.submit({ hashlink: createAnchor });
    expect(await anchorsOf(b)).toEqual(before);
    expect((await b.server.services.stores.published.query({ keyPrefix: `${did.value.suffix}:` })).items).toHaveLength(
      2,
    );
  });

  it('clears the pending record a submit left behind for an anchor processed meanwhile', async () => {
    // What a submit racing a commit leaves: the commit deleted the record before the submit inserted it.
    const { records, observer } = b.server.services.observer;
    const anchorHash = parseHashlink(updateAnchor).resourceHash;
    expect(await records.anchors.get(anchorHash)).toBeDefined();
    await records.pending.insert(anchorHash, { event: { hashlink: updateAnchor }, submittedAt: Date.now() });
    expect(await observer.process({ hashlink: updateAnchor })).toBe('duplicate');
    expect(await records.pending.get(anchorHash)).toBeUndefined();
    expect(await records.pending.count()).toBe(0);
  });

  it("replays a commit that failed after its operations were written with their queued copies' deletes only", async () => {
    const c = await startTestNode();
    try {
      const storage = c.server.context.storage;
      const batch = storage.batch.bind(storage);
      const sent: Array<Array<{ store: string; op: string }>> = [];
      let failed = false;
      // The first chunk lands, then its answer is lost: the anchor's records are never written.
      storage.batch = async (ops) => {
        sent.push(ops.map(({ store, op }) => ({ store, op })));
        await batch(ops);
        if (!failed && ops.some((op) => op.store === 'operation')) {
          failed = true;
          throw new Error('the write had no answer within the deadline');
        }
      };
      const { observer } = c.server.services.observer;
      const event = { hashlink: createAnchor, attributedTo: `${a.url}/services/node` };
      await expect(observer.process(event)).rejects.toThrow(/no answer/);
      sent.length = 0;
      expect(await observer.process(event)).toBe('processed');
      // The retry's chunk: the queued copy's delete, not the published operation and latest anchor again.
      const chunks = sent.filter((ops) => ops.some((op) => op.store === 'operation-queue'));
      expect(chunks).toEqual([[{ store: 'operation-queue', op: 'delete' }]]);
      expect(sent.some((ops) => ops.some((op) => op.store === 'operation'))).toBe(false);
      const onA = await resolveDid(a.url, did.value.did);
      const onC = await resolveDid(c.url, did.value.did);
      expect(onC.status).toBe(200);
      expect(metadataOf(onC).method.published).toBe(true);
      expect(metadataOf(onC).canonicalId).toBe(metadataOf(onA).canonicalId);
    } finally {
      await c.stop();
    }
  });

  it('refuses an embedded linkset that does not hash to its hashlink', async () => {
    const linkset = JSON.parse(
      (await a.server.services.cas.store.read(parseHashlink(updateAnchor).resourceHash))!.content.toString(),
    ) as object;
    const other = `hl:${multibaseMultihash('not this linkset')}`;
    await expect(b.server.services.observer.observer.process({ hashlink: other, linkset })).rejects.toMatchObject({
      retryable: false,
      message: /does not hash to/,
    });
  });

  it('refuses an anchor whose credential proof does not verify', async () => {
    const stored = JSON.parse(
      (await a.server.services.cas.store.read(parseHashlink(createAnchor).resourceHash))!.content.toString(),
    ) as {
      linkset: Array<{ replies: Array<{ href: string; type: string }> }>;
    };
    const credential = JSON.parse(decodeDataUri(stored.linkset[0]!.replies[0]!.href).toString()) as {
      issuanceDate: string;
    };
    // Same anchor, a credential whose signed content was changed after signing.
    credential.issuanceDate = '2001-01-01T00:00:00.000Z';
    stored.linkset[0]!.replies[0]!.href = encodeDataUri(canonicalBytes(credential), 'gzip');
    const hash = multibaseMultihash(canonicalBytes(stored));
    await expect(
      b.server.services.observer.observer.process({ hashlink: `hl:${hash}`, linkset: stored }),
    ).rejects.toMatchObject({
      retryable: false,
      message: /proof verification failed: proof 0 \(signature\)/,
    });
  });

  it('commits anchors given in order as one group, a DID both touch left at the newer, a refusal in its place', async () => {
    const c = await startTestNode();
    try {
      const observer = c.server.services.observer.observer;
      const refused: string[] = [];
      const onRefused = async (event: { hashlink: string }) => {
        refused.push(event.hashlink);
      };
      const source = `${a.url}/services/node`;
      expect(
        await observer.processInOrder(
          [
            { hashlink: createAnchor, attributedTo: source },
            { hashlink: updateAnchor, attributedTo: source },
          ],
          onRefused,
        ),
      ).toEqual(['processed', 'processed']);
      const records = await anchorsOf(c);
      const numberOf = (hashlink: string) =>
        records.find((entry) => entry.key === parseHashlink(hashlink).resourceHash)!.value.transactionNumber!;
      expect(numberOf(updateAnchor)).toBe(numberOf(createAnchor) + 1);
      const latest = await c.server.services.stores.didAnchors.get(did.value.suffix);
      expect(latest).toMatchObject({ anchor: updateAnchor, version: numberOf(updateAnchor) });
      expect((await resolveDid(c.url, did.value.did)).body.didDocument).toEqual(
        (await resolveDid(a.url, did.value.did)).body.didDocument,
      );

      // A replay is a duplicate; an anchor that fails its checks goes to onRefused and nothing of it is kept.
      const other = `hl:${multibaseMultihash('not this linkset')}`;
      const linkset = JSON.parse(
        (await a.server.services.cas.store.read(parseHashlink(updateAnchor).resourceHash))!.content.toString(),
      ) as object;
      expect(
        await observer.processInOrder([{ hashlink: updateAnchor }, { hashlink: other, linkset }], onRefused),
      ).toEqual(['duplicate', 'refused']);
      expect(refused).toEqual([other]);
      expect(await observer.isProcessed(parseHashlink(other).resourceHash)).toBeUndefined();
    } finally {
      await c.stop();
    }
  });

  it("commits a group while the next is gathered, that group's anchors standing in for its parents", async () => {
    const d = await startTestNode();
    try {
      const observer = d.server.services.observer.observer;
      // The first group's commit is held until the next anchor has been looked at.
      const internals = observer as unknown as {
        commitGroup(anchors: unknown[]): Promise<unknown[]>;
        parentsReady(...args: unknown[]): Promise<boolean>;
      };
      const commitGroup = internals.commitGroup.bind(observer);
      const parentsReady = internals.parentsReady.bind(observer);
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const steps: string[] = [];
      const commits = vi.spyOn(internals, 'commitGroup').mockImplementation(async (anchors) => {
        steps.push(`commit ${anchors.length}`);
        // Held at most 2 s: a serial loop never looks at the next anchor first, and the order below shows it.
        if (steps.filter((step) => step.startsWith('commit')).length === 1)
          await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 2_000))]);
        const outcomes = await commitGroup(anchors);
        steps.push('committed');
        return outcomes;
      });
      vi.spyOn(internals, 'parentsReady').mockImplementation(async (...args) => {
        const ready = await parentsReady(...args);
        steps.push(`parents ready: ${ready}`);
        if (steps.includes('commit 1')) release();
        return ready;
      });
      const oneAnchorPath = vi.spyOn(observer, 'process');
      const source = `${a.url}/services/node`;
      expect(
        await observer.processInOrder(
          [
            { hashlink: createAnchor, attributedTo: source },
            { hashlink: updateAnchor, attributedTo: source },
          ],
          async () => undefined,
          { groupBounds: { anchors: 1, operations: 5_000 } },
        ),
      ).toEqual(['processed', 'processed']);
      // The update's parent was in the commit in flight: counted as there, not fetched on the one-anchor path.
      expect(steps).toEqual([
        'parents ready: true',
        'commit 1',
        'parents ready: true',
        'committed',
        'commit 1',
        'committed',
      ]);
      expect(oneAnchorPath).not.toHaveBeenCalled();
      expect(commits).toHaveBeenCalledTimes(2);
      const records = await anchorsOf(d);
      const numberOf = (hashlink: string) =>
        records.find((entry) => entry.key === parseHashlink(hashlink).resourceHash)!.value.transactionNumber!;
      expect(numberOf(updateAnchor)).toBe(numberOf(createAnchor) + 1);
    } finally {
      vi.restoreAllMocks();
      await d.stop();
    }
  });

  it('commits nothing after a group whose commit failed, and throws its failure', async () => {
    const e = await startTestNode();
    try {
      const observer = e.server.services.observer.observer;
      const internals = observer as unknown as { commitGroup(anchors: unknown[]): Promise<unknown[]> };
      const commits = vi
        .spyOn(internals, 'commitGroup')
        .mockRejectedValueOnce(Object.assign(new Error('store down'), { code: 'unavailable', status: 503 }));
      const source = `${a.url}/services/node`;
      await expect(
        observer.processInOrder(
          [
            { hashlink: createAnchor, attributedTo: source },
            { hashlink: updateAnchor, attributedTo: source },
          ],
          async () => undefined,
          { groupBounds: { anchors: 1, operations: 5_000 } },
        ),
      ).rejects.toThrow('store down');
      expect(commits).toHaveBeenCalledTimes(1);
      expect(await anchorsOf(e)).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await e.stop();
    }
  });

  it('asks for a retry when the content cannot be fetched from anywhere right now', async () => {
    const deadPort = await freePort();
    const hash = multibaseMultihash('an anchor nobody serves');
    const hashlink = `hl:${hash}:${hashlinkMetadata([`http://127.0.0.1:${deadPort}/cas/${hash}`])}`;
    await expect(b.server.services.observer.observer.process({ hashlink })).rejects.toMatchObject({ retryable: true });
  });
});
