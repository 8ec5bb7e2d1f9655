import type { ProviderBatchOp } from '@anchor/common/storage';
import { afterAll, describe, expect, it } from 'vitest';
import type { PublishedOperation } from '../operations/operation-records.js';
import { STORE } from '../operations/operation-stores.js';
import { postOperation, startTestNode, TestDid, waitPublished, type TestNode } from '../testing/test-node.js';

/**
 * How the observer commits a large anchor: in chunks of at most 50 operations taken in DID order (each
 * chunk's records in one narrow key range, see ADR 0011), every operation keeping its batch position.
 */
describe('observer commit order', () => {
  let node: TestNode | undefined;
  afterAll(() => node?.stop());

  it('writes an anchor of 120 creates in chunks of DIDs in key order, each at its batch position', async () => {
    node = await startTestNode({ args: ['--batch-writer-timeout', '2s'] });
    const provider = node.server.services.stores.provider;
    const chunks: PublishedOperation[][] = [];
    const batch = provider.batch.bind(provider);
    provider.batch = (ops: ProviderBatchOp[]) => {
      const published = ops.filter(
        (op): op is ProviderBatchOp & { op: 'put'; value: PublishedOperation } =>
          op.store === STORE.published && op.op === 'put' && op.key.includes(':'),
      );
      if (published.length > 0) chunks.push(published.map((op) => op.value));
      return batch(ops);
    };

    const dids = Array.from({ length: 120 }, () => new TestDid(node!.url));
    const answers = await Promise.all(dids.map((did) => postOperation(node!.url, did.created.request)));
    expect(answers.map((answer) => answer.status)).toEqual(dids.map(() => 200));
    await Promise.all(dids.map((did) => waitPublished(node!.url, did.did, 1, 30_000)));

    const anchors = new Map<string, PublishedOperation[][]>();
    for (const chunk of chunks) {
      const anchor = chunk[0]!.canonicalReference;
      expect(chunk.every((record) => record.canonicalReference === anchor)).toBe(true);
      anchors.set(anchor, [...(anchors.get(anchor) ?? []), chunk]);
    }
    // The creates went into one or two anchors, at least one of them larger than a chunk.
    expect([...anchors.values()].flat(2)).toHaveLength(120);
    expect(Math.max(...[...anchors.values()].map((list) => list.length))).toBeGreaterThan(1);
    for (const list of anchors.values()) {
      expect(Math.max(...list.map((chunk) => chunk.length))).toBeLessThanOrEqual(50);
      const records = list.flat();
      const suffixes = records.map((record) => record.suffix);
      expect(suffixes).toEqual([...suffixes].sort());
      expect(records.map((record) => record.operationIndex).sort((a, b) => a - b)).toEqual(
        records.map((_, position) => position),
      );
    }
  }, 60_000);
});
