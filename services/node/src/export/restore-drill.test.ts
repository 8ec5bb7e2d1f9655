import { cp, rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeAdminClient } from '@anchor/common/clients';
import { freePort, makeTempDir, type TempDir } from '@anchor/testing/process';
import { postOperation, startTestNode, TestDid, waitPublished, type TestNode } from '../testing/test-node.js';

const SYNC = ['--sync-interval', '300ms', '--sync-min-activity-age', '0s'];

/**
 * The node restore drill of docs/operations.md: a node whose database is restored from a backup taken before it
 * anchored more DIDs, while its federation moved on, learns back its own anchors from a followee's export (the
 * original could not: orb issue 1030) and its peers' new anchors, and keeps everything of before the backup.
 */
describe('a node restored from an older backup', () => {
  const started: TestNode[] = [];
  const dirs: TempDir[] = [];
  afterAll(async () => {
    for (const node of started.reverse()) await node.stop().catch(() => undefined);
    for (const dir of dirs) await dir.remove();
  });

  it('learns back the anchors it made after the backup, and those its peers made meanwhile', async () => {
    const dir = await makeTempDir('node-restore-');
    const backup = await makeTempDir('node-backup-');
    dirs.push(dir, backup);
    const port = await freePort();
    const startA = async () => {
      const node = await startTestNode({ database: 'lmdb', dir, port, args: SYNC });
      started.push(node);
      return node;
    };
    const b = await startTestNode({ args: SYNC });
    started.push(b);
    let a = await startA();
    const aId = await new NodeAdminClient({ url: a.url }).serviceId();
    const bId = await new NodeAdminClient({ url: b.url }).serviceId();
    // Each follows the other: B observes A's anchors, and A's catch-up reads B's export.
    const adminA = new NodeAdminClient({ url: a.url });
    const adminB = new NodeAdminClient({ url: b.url });
    await adminA.follow(bId);
    await adminB.follow(aId);
    await adminA.waitUntilIn('following', bId, 15_000);
    await adminB.waitUntilIn('following', aId, 15_000);
    adminA.close();
    adminB.close();

    const create = async (node: TestNode) => {
      const did = new TestDid(node.url);
      expect((await postOperation(node.url, did.created.request)).status).toBe(200);
      return did;
    };
    const before = await create(a);
    await waitPublished(a.url, before.did);
    await waitPublished(b.url, before.did);

    await a.stop();
    await cp(dir.path, backup.path, { recursive: true });
    a = await startA();
    const afterBackup = [await create(a), await create(a)];
    for (const did of afterBackup) await waitPublished(b.url, did.did);
    await a.stop();

    // The restore, while B goes on anchoring.
    await rm(dir.path, { recursive: true, force: true });
    await cp(backup.path, dir.path, { recursive: true });
    const meanwhile = await create(b);
    await waitPublished(b.url, meanwhile.did);
    a = await startA();

    await waitPublished(a.url, before.did);
    for (const did of afterBackup) await waitPublished(a.url, did.did, 1, 30_000);
    await waitPublished(a.url, meanwhile.did, 1, 30_000);
    // A's own DIDs resolve with the anchor B holds for them: one anchor each, not a second one.
    for (const did of afterBackup) {
      const there = await waitPublished(b.url, did.did);
      const here = await waitPublished(a.url, did.did);
      expect(here.body.didDocumentMetadata).toMatchObject({
        canonicalId: (there.body.didDocumentMetadata as Record<string, unknown>).canonicalId,
      });
    }
  }, 120_000);
});
