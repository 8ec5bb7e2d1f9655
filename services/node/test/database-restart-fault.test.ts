import { join } from 'node:path';
import { FerretDbNode } from '@anchor/testing/ferretdb-node';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, describe, expect, it } from 'vitest';
import { metadataOf, postOperation, resolveDid, TestDid } from '../src/testing/test-node.js';
import { startNodeProcess, type NodeProcess } from './node-process.js';

/**
 * A fault test: the node's MongoDB-wire database (a FerretDB started here on its own port and data
 * directory) is stopped and started again while creates flow. Nothing the node acknowledged may be lost,
 * the node must recover without a restart, and its health must show the outage. The figures are printed
 * for the CI log.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function health(node: NodeProcess): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${node.url}/healthcheck`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

describe('a node through a database restart under load', () => {
  let dir: TempDir | undefined;
  let database: FerretDbNode | undefined;

  afterAll(async () => {
    await stopAllProcesses();
    await database?.down();
    await dir?.remove();
  });

  it('loses nothing acknowledged, recovers by itself and reports the outage', { timeout: 180_000 }, async () => {
    dir = await makeTempDir('node-db-restart-');
    database = await FerretDbNode.start(join(dir.path, 'ferretdb'));
    const node = await startNodeProcess(await makeTempDir('node-db-restart-data-'), {
      args: [
        '--database-type',
        'mongodb',
        '--database-url',
        database.url,
        '--batch-writer-timeout',
        '200ms',
        '--mq-redelivery-initial-interval',
        '100ms',
        '--mq-redelivery-multiplier',
        '1.5',
      ],
    });

    const acknowledged: TestDid[] = [];
    const refused = new Map<number, number>();
    let lastAckAt = 0;
    let loading = true;
    const worker = async () => {
      while (loading) {
        const did = new TestDid(node.url);
        try {
          const answer = await postOperation(node.url, did.created.request);
          if (answer.status === 200) {
            acknowledged.push(did);
            lastAckAt = Date.now();
          } else refused.set(answer.status, (refused.get(answer.status) ?? 0) + 1);
        } catch {
          refused.set(0, (refused.get(0) ?? 0) + 1);
        }
        await sleep(20);
      }
    };
    const workers = Array.from({ length: 4 }, worker);

    await sleep(2_000);
    const beforeOutage = acknowledged.length;
    await database.down();
    const downAt = Date.now();
    const outage = await waitFor(
      async () => {
        const answer = await health(node);
        return answer.status === 503 && answer.body.dbStatus !== 'success' ? answer : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'health reporting the database outage' },
    );
    const reportedMs = Date.now() - downAt;
    await sleep(2_000);
    await database.up();
    const upAt = Date.now();
    await waitFor(
      async () => {
        const answer = await health(node);
        return answer.status === 200 && answer.body.dbStatus === 'success' ? answer : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, description: 'health back to success after the database returned' },
    );
    const healthBackMs = Date.now() - upAt;
    await waitFor(async () => lastAckAt > upAt, {
      timeoutMs: 30_000,
      intervalMs: 50,
      description: 'a create acknowledged after the database returned',
    });
    const writesBackMs = lastAckAt - upAt;
    await sleep(2_000);
    loading = false;
    await Promise.all(workers);

    const pending = new Set(acknowledged);
    try {
      await waitFor(
        async () => {
          await Promise.all(
            [...pending].slice(0, 50).map(async (did) => {
              const answer = await resolveDid(node.url, did.did);
              if (
                answer.status === 200 &&
                (metadataOf(answer)?.method as { published?: boolean } | undefined)?.published === true
              )
                pending.delete(did);
            }),
          );
          return pending.size === 0;
        },
        { timeoutMs: 90_000, intervalMs: 200, description: `${pending.size} acknowledged DIDs published` },
      );
    } catch {
      // reported below
    }
    const publishedAllMs = Date.now() - upAt;
    console.log(
      `database restart under load: acknowledged ${acknowledged.length} (${beforeOutage} before the outage), lost ${pending.size}; ` +
        `refused ${[...refused].map(([status, n]) => `${status || 'no answer'}: ${n}`).join(', ') || 'none'}; outage ${upAt - downAt} ms, reported by health after ${reportedMs} ms ("${outage.body.dbStatus}"); ` +
        `health back ${healthBackMs} ms and creates back ${writesBackMs} ms after the database; all published ${publishedAllMs} ms after it`,
    );
    expect(refused.get(500) ?? 0).toBe(0);
    expect(acknowledged.length).toBeGreaterThan(beforeOutage);
    expect([...pending].map((did) => did.did)).toEqual([]);
    expect(node.process.exitInfo).toBeUndefined();
  });
});
