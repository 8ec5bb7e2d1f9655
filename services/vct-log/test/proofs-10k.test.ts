import { leafHash, rootOfLeafHashes, verifyConsistency, verifyInclusion } from '@anchor/common/merkle';
import type { SignedTreeHead } from '@anchor/common/vct';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogServer } from '../src/server.js';
import { anchorCredential, call, sthSignatureVerifies } from '../src/testing/index.js';

/**
 * A log grown to 10,000 entries over HTTP, with a signed tree head kept at a range of sizes (powers of
 * two and their neighbours, where RFC 6962 proofs change shape). Every proof the service serves must verify
 * with the merkle module's verifier against roots the client computes itself from get-entries.
 */
const TOTAL = 10_000;
const CHECKPOINTS = [
  1,
  2,
  3,
  4,
  5,
  7,
  8,
  9,
  16,
  17,
  100,
  255,
  256,
  257,
  1000,
  1023,
  1024,
  1025,
  4095,
  4096,
  4097,
  8191,
  8192,
  8193,
  9999,
  TOTAL,
];

describe(`proofs of a ${TOTAL.toLocaleString('en-US')}-entry log`, () => {
  let dir: TempDir;
  let server: VctLogServer;
  const heads = new Map<number, SignedTreeHead>();
  const leafHashes: Buffer[] = [];

  beforeAll(async () => {
    dir = await makeTempDir('vct-10k-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      integrationBatchSize: 10_000,
    });
    await server.start();
    let next = 0;
    for (const checkpoint of CHECKPOINTS) {
      // Fill up to the checkpoint with concurrent add-vc requests, then integrate: the head is exactly there.
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < checkpoint) {
            const n = next++;
            const reply = await call(`${server.url}/main/v1/add-vc`, { json: anchorCredential(`10k-${n}`) });
            if (reply.status !== 200) throw new Error(`add-vc ${n}: ${reply.status} ${reply.text}`);
          }
        }),
      );
      await server.integrateNow();
      const head = (await call<SignedTreeHead>(`${server.url}/main/v1/get-sth`)).body;
      expect(head.tree_size).toBe(checkpoint);
      heads.set(checkpoint, head);
    }
    while (leafHashes.length < TOTAL) {
      const page = await call<{ entries: Array<{ leaf_input: string }> }>(
        `${server.url}/main/v1/get-entries?start=${leafHashes.length}&end=${TOTAL - 1}`,
      );
      for (const entry of page.body.entries) leafHashes.push(leafHash(Buffer.from(entry.leaf_input, 'base64')));
    }
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('signs every head, and every head is the root of the entries below it', () => {
    for (const [size, head] of heads) {
      expect(sthSignatureVerifies(head, server.publicKey), `size ${size}`).toBe(true);
      expect(rootOfLeafHashes(leafHashes.slice(0, size)).toString('base64'), `size ${size}`).toBe(
        head.sha256_root_hash,
      );
    }
  });

  it('serves consistency proofs between every pair of heads that verify', async () => {
    const sizes = [...heads.keys()];
    for (const first of sizes) {
      for (const second of sizes.filter((size) => size >= first)) {
        const reply = await call<{ consistency: string[] | null }>(
          `${server.url}/main/v1/get-sth-consistency?first=${first}&second=${second}`,
        );
        const proof = (reply.body.consistency ?? []).map((node) => Buffer.from(node, 'base64'));
        const ok = verifyConsistency(
          first,
          second,
          Buffer.from(heads.get(first)!.sha256_root_hash, 'base64'),
          Buffer.from(heads.get(second)!.sha256_root_hash, 'base64'),
          proof,
        );
        expect(ok, `${first} -> ${second}`).toBe(true);
      }
    }
  }, 60_000);

  it('serves inclusion proofs, by index and by hash, that verify for leaves across each head', async () => {
    for (const [size, head] of heads) {
      const root = Buffer.from(head.sha256_root_hash, 'base64');
      const indices = new Set([
        0,
        size - 1,
        Math.floor(size / 2),
        Math.floor(size / 3),
        (size * 7919) % size,
        size > 1 ? size - 2 : 0,
      ]);
      for (const index of indices) {
        const byIndex = await call<{ audit_path: string[] | null }>(
          `${server.url}/main/v1/get-entry-and-proof?leaf_index=${index}&tree_size=${size}`,
        );
        const path = (byIndex.body.audit_path ?? []).map((node) => Buffer.from(node, 'base64'));
        expect(verifyInclusion(index, size, leafHashes[index]!, path, root), `${index} in ${size}`).toBe(true);
        const byHash = await call<{ leaf_index: number; audit_path: string[] | null }>(
          `${server.url}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(leafHashes[index]!.toString('base64'))}&tree_size=${size}`,
        );
        expect(byHash.body.leaf_index).toBe(index);
        expect(byHash.body.audit_path).toEqual(byIndex.body.audit_path);
      }
    }
  }, 60_000);

  it('proves every leaf of the full tree', async () => {
    const root = Buffer.from(heads.get(TOTAL)!.sha256_root_hash, 'base64');
    for (let index = 0; index < TOTAL; index += 7) {
      const reply = await call<{ leaf_index: number; audit_path: string[] | null }>(
        `${server.url}/main/v1/get-proof-by-hash?hash=${encodeURIComponent(leafHashes[index]!.toString('base64'))}&tree_size=${TOTAL}`,
      );
      const path = (reply.body.audit_path ?? []).map((node) => Buffer.from(node, 'base64'));
      expect(verifyInclusion(reply.body.leaf_index, TOTAL, leafHashes[index]!, path, root)).toBe(true);
    }
  }, 60_000);

  it('survives a restart with the same tree and proofs', async () => {
    const before = (await call<SignedTreeHead>(`${server.url}/main/v1/get-sth`)).body;
    const proofBefore = (await call(`${server.url}/main/v1/get-entry-and-proof?leaf_index=4242&tree_size=8193`)).text;
    await server.stop();
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'lmdb' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
    });
    await server.start();
    expect((await call<SignedTreeHead>(`${server.url}/main/v1/get-sth`)).body).toEqual(before);
    expect((await call(`${server.url}/main/v1/get-entry-and-proof?leaf_index=4242&tree_size=8193`)).text).toBe(
      proofBefore,
    );
  });
});
