import { VctLogClient } from '@anchor/common/clients';
import type { AppError } from '@anchor/common/errors';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from '@anchor/common/jsonld';
import { leafHash, MerkleTree } from '@anchor/common/merkle';
import type { SignedTreeHead } from '@anchor/common/vct';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type VctLogServer } from '../src/server.js';
import { anchorCredential } from '../src/testing/index.js';

/** The common log client against a real log: every answer it accepts is checked, and forgeries are refused. */
describe('VctLogClient', () => {
  let dir: TempDir;
  let server: VctLogServer;
  let logUrl: string;
  const client = new VctLogClient({ allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });

  beforeAll(async () => {
    dir = await makeTempDir('vct-client-');
    server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      canonicalizeWorkers: 0,
      integrationIntervalMs: 60_000,
      logs: [{ alias: 'main', read: true, write: true, issuers: [] }],
    });
    await server.start();
    logUrl = `${server.baseUrl}/main`;
  });

  afterAll(async () => {
    await server.stop();
    await dir.remove();
  });

  it('adds credentials, proves their inclusion and the consistency of successive tree heads', async () => {
    const first = anchorCredential('client-1');
    const promise = await client.addCredential(logUrl, first);
    await server.integrateNow();
    const sth1 = await client.signedTreeHead(logUrl);
    expect(sth1.tree_size).toBe(1);
    const hash1 = await client.leafHashOf(first, promise.timestamp);
    expect((await client.verifyInclusion(logUrl, hash1, sth1)).leafIndex).toBe(0);

    const second = anchorCredential('client-2');
    const promise2 = await client.addCredential(logUrl, second);
    await client.addCredential(logUrl, anchorCredential('client-3'));
    await server.integrateNow();
    const sth3 = await client.signedTreeHead(logUrl);
    expect(sth3.tree_size).toBe(3);
    await expect(client.verifyConsistency(logUrl, sth1, sth3)).resolves.toBeInstanceOf(Array);
    const hash2 = await client.leafHashOf(second, promise2.timestamp);
    expect((await client.verifyInclusion(logUrl, hash2, sth3)).leafIndex).toBe(1);
  });

  it('refuses a tree head whose root or size was altered', async () => {
    const sth = await client.signedTreeHead(logUrl);
    const otherRoot: SignedTreeHead = { ...sth, sha256_root_hash: Buffer.alloc(32, 7).toString('base64') };
    expect(await client.sthProblem(logUrl, otherRoot)).toMatch(/does not verify/);
    expect(await client.sthProblem(logUrl, { ...sth, tree_size: sth.tree_size + 1 })).toMatch(/does not verify/);
    expect(await client.sthProblem(logUrl, sth)).toBeUndefined();
  });

  it('refuses a consistency claim between a forged earlier head and the real one', async () => {
    const sth = await client.signedTreeHead(logUrl);
    const forged: SignedTreeHead = { ...sth, tree_size: 1, sha256_root_hash: Buffer.alloc(32, 1).toString('base64') };
    const refusal = await client.verifyConsistency(logUrl, forged, sth).then(
      () => undefined,
      (error: unknown) => error as AppError,
    );
    expect(refusal?.message).toMatch(/not consistent/);
    // The proof the log gave travels with the refusal, for a monitor to keep as evidence.
    const proof = refusal?.details?.consistency as string[];
    expect(proof.length).toBeGreaterThan(0);
    for (const hash of proof) expect(Buffer.from(hash, 'base64')).toHaveLength(32);
  });

  it('hands a monitor the tree head as sent with what is wrong with it', async () => {
    const checked = await client.checkedTreeHead(logUrl);
    expect(checked.problem).toBeUndefined();
    expect(checked.publicKey).toEqual(await client.publicKey(logUrl));
    expect((checked.sth as SignedTreeHead).tree_size).toBeGreaterThan(0);
  });

  it('reads entries in pages and rebuilds the root of a signed tree head from them', async () => {
    await client.addCredential(logUrl, anchorCredential('client-5'));
    await server.integrateNow();
    const sth = await client.signedTreeHead(logUrl);
    expect(sth.tree_size).toBeGreaterThanOrEqual(3);
    const first = await client.entries(logUrl, 0, 1);
    expect(first).toHaveLength(2);
    const tree = MerkleTree.empty();
    await client.appendEntries(logUrl, tree, 1, 2);
    // Continues from where the tree stands, one entry a page.
    await client.appendEntries(logUrl, tree, sth.tree_size, 1);
    expect(tree.size).toBe(sth.tree_size);
    expect(tree.root().toString('base64')).toBe(sth.sha256_root_hash);
    expect(tree.leafHash(0)).toEqual(leafHash(first[0]!));
    await expect(client.entries(logUrl, sth.tree_size, sth.tree_size)).rejects.toThrow();
  });

  it('refuses an inclusion proof for a leaf the log does not hold, and a proof against another root', async () => {
    const sth = await client.signedTreeHead(logUrl);
    await expect(client.verifyInclusion(logUrl, Buffer.alloc(32, 9), sth)).rejects.toThrow();
    const promise = await client.addCredential(logUrl, anchorCredential('client-4'));
    await server.integrateNow();
    const now = await client.signedTreeHead(logUrl);
    const hash = await client.leafHashOf(anchorCredential('client-4'), promise.timestamp);
    const wrongRoot = { ...now, sha256_root_hash: sth.sha256_root_hash };
    await expect(client.verifyInclusion(logUrl, hash, wrongRoot)).rejects.toThrow(/does not lead to the root/);
  });
});
