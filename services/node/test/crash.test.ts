import { join } from 'node:path';
import { createStoreProvider, queryAll } from '@anchor/common/storage';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, describe, expect, it } from 'vitest';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import { startNodeProcess } from './node-process.js';

/**
 * Durability: a burst of creates, SIGKILL as soon as the last 200 arrives — batches are
 * being cut, built, signed and processed at that instant — then a restart on the same data: every accepted
 * operation is anchored exactly once and resolvable.
 */
const BURST = 400;
const CONCURRENCY = 40;

describe('crash recovery', () => {
  const dirs: TempDir[] = [];
  afterAll(async () => {
    await stopAllProcesses();
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  it('anchors every accepted create after a SIGKILL right after the 200s', async () => {
    const dir = await makeTempDir('node-crash-');
    dirs.push(dir);
    // Short batches so that several are in flight when the process dies.
    const args = ['--batch-writer-timeout', '100ms', '--max-operations-per-batch', '50'];
    const first = await startNodeProcess(dir, { args });
    const dids = Array.from({ length: BURST }, () => new TestDid(first.url));
    let next = 0;
    const accepted: TestDid[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < dids.length) {
          const did = dids[next++]!;
          const answer = await postOperation(first.url, did.created.request);
          expect(answer.status, answer.text).toBe(200);
          accepted.push(did);
        }
      }),
    );
    await first.process.kill();
    expect(first.process.exitInfo?.signal).toBe('SIGKILL');
    expect(accepted).toHaveLength(BURST);

    const second = await startNodeProcess(dir, { port: first.port, args });
    const pending = new Set(accepted);
    await waitFor(
      async () => {
        await Promise.all(
          [...pending].slice(0, 100).map(async (did) => {
            const result = await resolveDid(second.url, did.did);
            if (result.status === 200 && metadataOf(result).method.published === true) pending.delete(did);
          }),
        );
        return pending.size === 0;
      },
      { timeoutMs: 60_000, intervalMs: 200, description: `${pending.size} DIDs to be published after the restart` },
    );
    const metrics = await (await fetch(`${second.url}/metrics`)).text();
    expect(metrics).toMatch(/^node_pending_operations 0$/m);

    // Exactly once: one published operation per DID, nothing left queued or pending, every batch completed.
    await second.process.stop();
    const storage = await createStoreProvider({ type: 'lmdb', dataDir: join(dir.path, 'db') });
    try {
      const count = async (store: string) => (await storage.open(store)).count();
      // Per DID one published operation (`<suffix>:<anchor hash>`) and its latest anchor (`<suffix>`).
      const published = (await queryAll(await storage.open('operation'), { limit: 1000 })).map(({ key }) => key);
      expect(published.filter((key) => key.includes(':'))).toHaveLength(BURST);
      expect(published.filter((key) => !key.includes(':'))).toHaveLength(BURST);
      expect(await count('operation-queue')).toBe(0);
      expect(await count('anchor-pending')).toBe(0);
      const batches = await storage.open<{ status: string }>('anchor-batch', {
        indexes: [['status', 'createdAt']],
        expiryField: 'expiresAt',
      });
      const statuses = new Set((await batches.query({ limit: 1000 })).items.map((item) => item.value.status));
      expect([...statuses]).toEqual(['completed']);
      // A completed batch's body (its operation keys and content) goes with the status change that completes it.
      expect(await count('anchor-batch-body')).toBe(0);
    } finally {
      await storage.close();
    }
  });
});
