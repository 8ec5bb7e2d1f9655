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
 * three starts (the original's versions feature, on one node): v1.0 accepts a create of 9 keys (about 1,800 bytes)
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

  it('refuses a current version it does not run, in one line', async () => {
    await expect(
      startTestNode({ args: ['--current-sidetree-protocol-version', 'test'], port: await freePort() }),
    ).rejects.toThrow("the current protocol version 'test' is not among the versions run (1.0)");
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
