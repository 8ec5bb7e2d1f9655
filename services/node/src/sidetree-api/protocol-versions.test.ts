import { KeyPair } from '@anchor/common/crypto';
import { freePort, makeTempDir, type TempDir } from '@anchor/testing/process';
import { addPublicKeys, createRequest, documentKey, serializeRequest, type BuiltCreate } from '@anchor/sidetree';
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
 * `--sidetree-protocol-versions` / `--current-sidetree-protocol-version` on one node whose database outlives
 * three starts (Orb's versions feature, on one node): v1.0 accepts a create of 9 keys (about 1,800 bytes)
 * that the test version (at most 1,700 bytes) refuses. An operation is anchored under the version it was
 * accepted under, also when the switch comes between its acceptance and its batch, and what was anchored
 * under v1.0 keeps resolving under v1.0's rules after the switch (read under the test version's 1,500-byte
 * delta limit, the 9-key create would lose its keys).
 */
describe('two protocol versions', () => {
  let dir: TempDir;
  let port: number;
  let node: TestNode | undefined;
  const start = async (args: string[]): Promise<TestNode> => {
    node = await startTestNode({ database: 'lmdb', dir, port, args });
    return node;
  };
  const stop = async (): Promise<void> => {
    await node?.stop();
    node = undefined;
  };

  beforeAll(async () => {
    dir = await makeTempDir('node-versions-');
    port = await freePort();
  });
  afterAll(async () => {
    await stop();
    await dir.remove();
  });

  const origin = (): string => `http://127.0.0.1:${port}`;
  const publishedVersions = (answer: Awaited<ReturnType<typeof resolveDid>>): unknown[] =>
    (metadataOf(answer).method.publishedOperations as Array<{ protocolVersion: unknown }>).map(
      (operation) => operation.protocolVersion,
    );

  it('accepts under the current version, anchors under the accepted one, resolves each under its own', async () => {
    // v1.0 only: a 9-key create is accepted and anchored (profile orb#v0).
    await start([]);
    const anchoredBefore = createWithKeys(9, origin());
    expect((await postOperation(origin(), anchoredBefore.request)).status).toBe(200);
    expect(publishedVersions(await waitPublished(origin(), anchoredBefore.did))).toEqual([0]);
    await stop();

    // v1.0 still, no batch cut: a second 9-key create waits in the queue across the switch.
    await start(['--batch-writer-timeout', '1h']);
    const queuedAcrossSwitch = createWithKeys(9, origin());
    expect((await postOperation(origin(), queuedAcrossSwitch.request)).status).toBe(200);
    await stop();

    // Both versions, the test one current.
    await start(['--sidetree-protocol-versions', '1.0,test', '--current-sidetree-protocol-version', 'test']);
    const refused = await postOperation(origin(), createWithKeys(9, origin()).request);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/too large: 18\d\d bytes exceeds the maximum of 1700/);

    const small = new TestDid(origin());
    expect((await postOperation(origin(), small.created.request)).status).toBe(200);
    expect(publishedVersions(await waitPublished(origin(), small.did))).toEqual([777]);
    // Accepted under v1.0 before the switch: anchored under v1.0, with all its keys.
    const carried = await waitPublished(origin(), queuedAcrossSwitch.did);
    expect(publishedVersions(carried)).toEqual([0]);
    expect((carried.body.didDocument as { verificationMethod?: unknown[] }).verificationMethod).toHaveLength(9);

    // Anchored under v1.0 before the switch: still resolves under v1.0's rules.
    const before = await resolveDid(origin(), anchoredBefore.did);
    expect(before.status).toBe(200);
    expect(publishedVersions(before)).toEqual([0]);
    expect((before.body.didDocument as { verificationMethod?: unknown[] }).verificationMethod).toHaveLength(9);
  });

  it('cuts batches of one version: earlier ones go as they are when later ones queue behind them', async () => {
    await stop();
    await dir.remove();
    dir = await makeTempDir('node-versions-');
    // Accepted under v1.0; no batch is cut before the switch (nor after it by the timeout).
    await start(['--batch-writer-timeout', '1h']);
    const earlier = createWithKeys(9, origin());
    expect((await postOperation(origin(), earlier.request)).status).toBe(200);
    await stop();

    await start([
      ...['--sidetree-protocol-versions', '1.0,test', '--current-sidetree-protocol-version', 'test'],
      ...['--batch-writer-timeout', '1h', '--max-operations-per-batch', '2'],
    ]);
    const later = [new TestDid(origin()), new TestDid(origin())];
    for (const did of later) expect((await postOperation(origin(), did.created.request)).status).toBe(200);
    const anchored = await Promise.all(
      [earlier.did, ...later.map((did) => did.did)].map((did) => waitPublished(origin(), did, 1, 10_000)),
    );
    expect(anchored.map(publishedVersions)).toEqual([[0], [777], [777]]);
    const anchorOf = (answer: (typeof anchored)[number]): string => metadataOf(answer).canonicalId;
    expect(anchorOf(anchored[1]!).split(':').at(-2)).toBe(anchorOf(anchored[2]!).split(':').at(-2));
  });

  it('refuses a current version it does not run, in one line', async () => {
    await expect(
      startTestNode({ args: ['--current-sidetree-protocol-version', 'test'], port: await freePort() }),
    ).rejects.toThrow("the current protocol version 'test' is not among the versions run (1.0)");
  });
});

/**
 * Across nodes (Orb's versions feature with domain2): an anchor written under the test version is
 * not read by a node that runs v1.0 only; it waits in that node's pending anchors (a retryable refusal), and
 * once the node runs the test version too it is read, under the test version, after the restart.
 */
describe('an anchor of a version a node does not run', () => {
  let writer: TestNode | undefined;
  let reader: TestNode | undefined;
  let dir: TempDir;
  let port: number;

  beforeAll(async () => {
    dir = await makeTempDir('node-versions-reader-');
    port = await freePort();
  });
  afterAll(async () => {
    await Promise.all([writer?.stop(), reader?.stop()]);
    await dir.remove();
  });

  it('waits until the node runs that version, then is read under it', async () => {
    writer = await startTestNode({
      args: ['--sidetree-protocol-versions', '1.0,test', '--current-sidetree-protocol-version', 'test'],
    });
    reader = await startTestNode({ database: 'lmdb', dir, port });
    const did = new TestDid(writer.url);
    expect((await postOperation(writer.url, did.created.request)).status).toBe(200);
    const published = await waitPublished(writer.url, did.did);
    const [operation] = metadataOf(published).method.publishedOperations as Array<{
      protocolVersion: number;
      equivalentReferences: string[];
    }>;
    expect(operation!.protocolVersion).toBe(777);
    const hashlink = operation!.equivalentReferences[0]!;
    const event = { hashlink, attributedTo: `${writer.url}/services/node` };

    await expect(reader.server.services.observer.observer.process(event)).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/protocol version 777, which this node does not run \(it runs 1\.0\)/),
    });
    await reader.server.services.observer.submit(event);
    expect((await resolveDid(reader.url, did.did)).status).toBe(404);
    await reader.stop();

    reader = await startTestNode({ database: 'lmdb', dir, port, args: ['--sidetree-protocol-versions', '1.0,test'] });
    const read = await waitPublished(reader.url, did.did);
    expect(read.body.didDocument).toEqual((await resolveDid(writer.url, did.did)).body.didDocument);
    expect(
      (metadataOf(read).method.publishedOperations as Array<{ protocolVersion: number }>)[0]!.protocolVersion,
    ).toBe(777);
  });
});

/** A create publishing `keys` Ed25519 keys (about 164 bytes each; 9 make about 1,800). */
function createWithKeys(keys: number, anchorOrigin: string): BuiltCreate {
  const built = createRequest({
    recoveryKey: KeyPair.generate('Ed25519'),
    updateKey: KeyPair.generate('Ed25519'),
    anchorOrigin,
    patches: [
      addPublicKeys(
        ...Array.from({ length: keys }, (_, index) =>
          documentKey(`key-${index}`, KeyPair.generate('Ed25519'), { purposes: ['authentication'] }),
        ),
      ),
    ],
  });
  expect(serializeRequest(built.request).length).toBeGreaterThan(1700);
  return built;
}
