import { join } from 'node:path';
import { FerretDbNode } from '@anchor/testing/ferretdb-node';
import {
  builtServiceMain,
  freePort,
  makeTempDir,
  startProcess,
  stopAllProcesses,
  waitFor,
  type TempDir,
} from '@anchor/testing/process';
import { afterAll, describe, expect, it } from 'vitest';
import { LogLoad } from './log-load.js';

/**
 * A fault test: the log's MongoDB-wire database (a FerretDB started here on its own port and data
 * directory) is stopped and started again while credentials are submitted and integrated. Nothing
 * acknowledged may be lost, every head must stay consistent, the log must recover without a restart,
 * and its health must show the outage. The figures are printed for the CI log.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// FerretDB has no transactions, so an integration batch cut by the outage can be half written (entries
// inserted, head not moved): the sequencer rolls it forward (src/merkle-log/interrupted-batch.test.ts pins every
// cut point). The shutdown can also leave the driver's server monitor stuck for good: the adapter then replaces
// its client (common/src/storage/mongodb-heartbeat-watch.ts), and health comes back about 15 s after the database.
// Every submission the outage touches answers 503 with Retry-After, never 500: the adapter maps every connectivity
// failure, the driver's bare socket errors and a replaced client's included (common/src/storage/mongodb-errors.ts).
// Each stage below has its own bound, which names what stalled; the test's own bound leaves room for all of them
// on a loaded CI machine.
const main = builtServiceMain('vct-log');

describe('a vct-log through a database restart under load', () => {
  let dir: TempDir | undefined;
  let database: FerretDbNode | undefined;
  afterAll(async () => {
    await stopAllProcesses();
    await database?.down();
    await dir?.remove();
  });

  it(
    'loses nothing acknowledged, keeps its heads consistent, recovers by itself and reports the outage',
    { timeout: 300_000 },
    async () => {
      dir = await makeTempDir('vct-db-restart-');
      database = await FerretDbNode.start(dir.path);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const service = await startProcess(main, {
        args: [
          '--host-url',
          `127.0.0.1:${port}`,
          '--database-type',
          'mongodb',
          '--database-url',
          database.url,
          '--data-dir',
          join(dir.path, 'log'),
          '--integration-interval',
          '50ms',
          '--canonicalize-workers',
          '1',
          '--log-level',
          'warning',
        ],
        readyUrl: `${url}/healthcheck`,
        readyStatus: (status) => status === 200,
      });
      const load = new LogLoad(url);

      await sleep(2_000);
      const beforeOutage = load.acknowledged.size;
      await database.down();
      const downAt = Date.now();
      await waitFor(async () => (await fetch(`${url}/healthcheck`)).status === 503, {
        timeoutMs: 30_000,
        intervalMs: 200,
        description: 'health reporting the database outage',
      });
      const reportedMs = Date.now() - downAt;
      await sleep(2_000);
      await database.up();
      const upAt = Date.now();
      await waitFor(
        async () => {
          const answer = await fetch(`${url}/healthcheck`);
          if (answer.status === 200) return true;
          throw new Error(`health ${answer.status} ${await answer.text()}`);
        },
        { timeoutMs: 60_000, intervalMs: 200, description: 'health back after the database returned' },
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; log output:\n${service.output().slice(-3_000)}`);
      });
      const healthBackMs = Date.now() - upAt;
      const writesBackMs = await load.ackAfter(upAt);
      await sleep(1_000);
      await load.stop();
      const { lost, inconsistent, treeSize, missing } = await load.verify().catch(async (error: unknown) => {
        const head = await fetch(`${url}/main/v1/get-sth`).then((r) => r.text());
        throw new Error(
          `${(error as Error).message}; acknowledged ${load.acknowledged.size}, head ${head}; log output:\n${service.output().slice(-3_000)}`,
        );
      });
      console.log(
        `vct-log database restart under load: acknowledged ${load.acknowledged.size} (${beforeOutage} before the outage), lost ${lost}, tree size ${treeSize}, heads seen ${load.heads.length}, inconsistent ${inconsistent}; ` +
          `answers ${load.summary()}; outage ${upAt - downAt} ms, reported by health after ${reportedMs} ms; health back ${healthBackMs} ms and submissions back ${writesBackMs} ms after the database` +
          `; refusals: ${[...load.messages].join(' | ') || 'none'}; 503 without Retry-After ${load.unavailableWithoutRetryAfter}` +
          (missing.length > 0
            ? `; missing: ${missing.join(', ')}; log output:\n${service.output().slice(-3_000)}`
            : ''),
      );
      if (load.count(500) > 0) {
        const lines = service.output().split('\n');
        const at = lines.findIndex((line) => /unhandled error|"status":5(?!03)\d\d/.test(line));
        console.log(`log output at the first server error:\n${lines.slice(Math.max(0, at), at + 30).join('\n')}`);
      }
      expect(load.count(500)).toBe(0);
      expect(load.unavailableWithoutRetryAfter).toBe(0);
      expect(load.acknowledged.size).toBeGreaterThan(beforeOutage);
      expect(lost).toBe(0);
      expect(inconsistent).toBe(0);
      expect(service.exitInfo).toBeUndefined();
      await service.stop();
    },
  );
});
