import { join } from 'node:path';
import { FerretDbNode } from '@anchor/testing/ferretdb-node';
import { makeTempDir, stopAllProcesses, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, describe, expect, it } from 'vitest';
import { CreateLoad, health, unpublished } from './fault-load.js';
import { startNodeProcess } from './node-process.js';

/**
 * A fault test: the node's MongoDB-wire database (a FerretDB started here on its own port and data
 * directory) is stopped and started again while creates flow. Nothing the node acknowledged may be lost,
 * the node must recover without a restart, and its health must show the outage. The figures are printed
 * for the CI log.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// FerretDB has no transactions: a store batch the outage cuts leaves its first writes applied, so every multi-store
// write of the anchoring must leave a resumable state at each cut point (src/anchoring/anchor-batches.test.ts).
// The driver can leave a server monitor or an operation waiting forever after the shutdown: the adapter replaces
// the client, and gives every call a deadline (common/src/storage/mongodb-heartbeat-watch.ts, mongodb-deadline.ts).
// Each stage below has its own bound, which names what stalled; the test's own bound leaves room for all of them
// on a loaded CI machine.

describe('a node through a database restart under load', () => {
  let dir: TempDir | undefined;
  let database: FerretDbNode | undefined;

  afterAll(async () => {
    await stopAllProcesses();
    await database?.down();
    await dir?.remove();
  });

  it('loses nothing acknowledged, recovers by itself and reports the outage', { timeout: 300_000 }, async () => {
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
        // A batch whose step could not even record its failure (the store was down) waits this long.
        '--mq-redelivery-max-interval',
        '5s',
      ],
    });
    const load = new CreateLoad(() => node.url);

    await sleep(2_000);
    const beforeOutage = load.acknowledged.length;
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
        if (answer.status === 200 && answer.body.dbStatus === 'success') return answer;
        throw new Error(`health ${answer.status} ${JSON.stringify(answer.body)}`);
      },
      { timeoutMs: 60_000, intervalMs: 200, description: 'health back to success after the database returned' },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; node output:\n${node.process.output().slice(-3_000)}`);
    });
    const healthBackMs = Date.now() - upAt;
    const writesBackMs = await load.ackAfter(upAt);
    await sleep(2_000);
    await load.stop();

    const missing = await unpublished(node.url, load.acknowledged, 90_000);
    console.log(
      `database restart under load: acknowledged ${load.acknowledged.length} (${beforeOutage} before the outage), lost ${missing.length}; answers ${load.summary()}; ` +
        `outage ${upAt - downAt} ms, reported by health after ${reportedMs} ms ("${outage.body.dbStatus}"); ` +
        `health back ${healthBackMs} ms and creates back ${writesBackMs} ms after the database; all published ${Date.now() - upAt} ms after it; ` +
        `refusals: ${[...load.messages].join(' | ') || 'none'}`,
    );
    if (missing.length > 0) {
      const anchoring = node.process
        .output()
        .split('\n')
        .filter((line) => /anchor|batch/.test(line));
      console.log(`node output on anchoring (last 40 lines):\n${anchoring.slice(-40).join('\n')}`);
    }
    if (load.serverErrors() > 0) {
      const lines = node.process.output().split('\n');
      const at = lines.findIndex((line) => /unhandled error| status=5(?!03)\d\d/.test(line));
      console.log(`node output at the first server error:\n${lines.slice(Math.max(0, at), at + 30).join('\n')}`);
    }
    expect(load.serverErrors()).toBe(0);
    expect(load.acknowledged.length).toBeGreaterThan(beforeOutage);
    expect(missing).toEqual([]);
    expect(node.process.exitInfo).toBeUndefined();
  });
});
