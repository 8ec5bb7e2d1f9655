import { join } from 'node:path';
import { builtServiceMain, loopbackService, stopAllProcesses, waitFor } from '@anchor/testing/process';
import { SmallDisk, tmpfsUnavailable } from '@anchor/testing/tmpfs';
import { afterAll, describe, expect, it } from 'vitest';
import { LogLoad } from './log-load.js';
import { anchorCredential, call } from '../src/testing/index.js';

/**
 * A fault test: the log's data directory sits on a small tmpfs that is filled while credentials are
 * submitted and integrated. Submissions must answer 503 (never 500, never a crash); once space returns,
 * submissions are taken again, every acknowledged entry is integrated exactly where it was acknowledged,
 * and every head is consistent with the heads seen before. When a commit did meet the full disk the store
 * fails closed; the log is then restarted on the still-full disk, where it must serve reads and refuse
 * submissions with 503. The figures are printed for the CI log.
 */
const unavailable = tmpfsUnavailable();
if (unavailable) console.warn(`vct-log disk-full fault test skipped: ${unavailable}`);

const main = unavailable ? '' : builtServiceMain('vct-log');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(unavailable !== undefined)('a vct-log whose disk fills under load', () => {
  let disk: SmallDisk | undefined;
  afterAll(async () => {
    await stopAllProcesses();
    await disk?.remove();
  });

  it(
    'answers 503 while full, loses nothing acknowledged, and its heads stay consistent',
    { timeout: 180_000 },
    async () => {
      disk = await SmallDisk.mount(64 * 1024 * 1024);
      const dataDir = join(disk.path, 'data');
      const { url, start } = await loopbackService(main, [
        '--data-dir',
        dataDir,
        '--integration-interval',
        '50ms',
        '--canonicalize-workers',
        '1',
        '--log-level',
        'error',
      ]);
      let service = await start();
      const load = new LogLoad(url);

      // 1. Just under the free-space reserve.
      await sleep(2_000);
      const beforeFull = load.acknowledged.size;
      await disk.fill(256 * 1024);
      await waitFor(async () => load.count(503) > 0, {
        timeoutMs: 20_000,
        intervalMs: 100,
        description: 'a 503 while the disk is full',
      });
      await sleep(1_000);
      await disk.free();
      const resumedMs = await load.ackAfter(Date.now(), 20_000);
      expect(service.exitInfo).toBeUndefined();
      console.log(
        `vct-log disk full (reserve): acknowledged ${load.acknowledged.size} (${beforeFull} before the fill), answers ${load.summary()}; submissions resumed ${resumedMs} ms after the space returned`,
      );

      // 2. To the last byte: the reserve catches every write, or a commit meets the full disk and the log
      // is restarted on it (reads served, submissions refused) before the space returns.
      await sleep(1_000);
      const before503 = load.count(503);
      await disk.fill(0);
      await waitFor(async () => load.count(503) > before503, {
        timeoutMs: 20_000,
        intervalMs: 100,
        description: '503s on the full disk',
      });
      await sleep(1_500);
      // A store that failed closed makes the log stop and exit 1 by itself (within a second), so a supervisor
      // restarts it; until it has, health says 503.
      const health = service.exitInfo ? undefined : await fetch(`${url}/healthcheck`).catch(() => undefined);
      const failedClosed = health === undefined || health.status === 503;
      if (failedClosed) {
        const exit = await Promise.race([service.exited, sleep(15_000).then(() => undefined)]);
        console.log(`vct-log exit after its store failed closed: ${JSON.stringify(exit)}`);
        expect(exit?.code).toBe(1);
        expect(service.output()).toMatch(/stopping so that a supervisor restarts the process/);
        service = await start();
        expect((await call(`${url}/main/v1/get-sth`)).status).toBe(200);
        const refused = await call(`${url}/main/v1/add-vc`, { json: anchorCredential('while-full') });
        expect(refused.status).toBe(503);
        expect(refused.text).toMatch(/storage full/);
      }
      await disk.free();
      const resumedAgainMs = await load.ackAfter(Date.now());
      await sleep(500);
      await load.stop();
      const { lost, inconsistent } = await load.verify();
      console.log(
        `vct-log disk full (to the last byte): ${failedClosed ? 'a commit met the full disk, the store failed closed, restarted on the full disk (reads 200, add-vc 503)' : 'the reserve caught every write'}; ` +
          `submissions resumed ${resumedAgainMs} ms after the space returned; acknowledged ${load.acknowledged.size}, lost ${lost}, heads seen ${load.heads.length}, inconsistent ${inconsistent}; answers ${load.summary()}`,
      );
      expect(load.count(500)).toBe(0);
      expect(lost).toBe(0);
      expect(inconsistent).toBe(0);
      expect(service.exitInfo).toBeUndefined();
      await service.stop();
    },
  );
});
