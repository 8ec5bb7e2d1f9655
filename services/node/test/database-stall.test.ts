import { stopAllProcesses, waitFor } from '@anchor/testing/process';
import type { TcpProxy } from '@anchor/testing/tcp-proxy';
import { serializeRequest } from '@anchor/sidetree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, TestDid, waitPublished } from '../src/testing/test-node.js';
import type { NodeProcess } from './node-process.js';
import {
  health,
  startNodeOnProxiedDatabase,
  type HealthAnswer,
  type ProxiedDatabaseNode,
} from './proxied-database-node.js';

/**
 * A stalled database, as haproxy sees it: the built node talks to MongoDB (MONGODB_URL when set, else FerretDB)
 * through a TCP proxy whose blackhole keeps every connection open and carries nothing. /healthcheck must say
 * Degraded (200, the replica stays in rotation) while the silence is shorter than --database-stall-tolerance,
 * 503 once it is longer, and 200 again after the link returns; intake refuses with 503 meanwhile.
 */

const TOLERANCE_S = 6;

describe('health through a database stall (MongoDB through a blackholed TCP proxy)', () => {
  let node: NodeProcess;
  let proxy: TcpProxy;
  let database: ProxiedDatabaseNode | undefined;

  beforeAll(async () => {
    database = await startNodeOnProxiedDatabase('stall', ['--database-stall-tolerance', `${TOLERANCE_S}s`]);
    ({ node, proxy } = database);
  }, 20 * 60_000);

  afterAll(async () => {
    await stopAllProcesses();
    await database?.close();
  });

  it(
    'is Degraded 200 within the tolerance, 503 past it, intake 503 meanwhile, and 200 again after restore',
    async () => {
      expect(await health(node)).toMatchObject({ status: 200, body: { dbStatus: 'success', status: 'OK' } });
      proxy.blackhole();

      // Every answer until the first 503, polled as haproxy does: none may be a 503 before the store has been
      // silent for the tolerance (by the probe's own count), and at least one says Degraded.
      const before: HealthAnswer[] = [];
      const down = await waitFor(
        async () => {
          const answer = await health(node);
          if (answer.status === 503) return answer;
          before.push(answer);
          return undefined;
        },
        { timeoutMs: 60_000, intervalMs: 200, description: '/healthcheck answering 503 in the stall' },
      );
      // (The first may still show the ping answered just before the blackhole, its store readers then not run.)
      const degraded = before.filter((answer) => answer.body.dbStatus?.startsWith('degraded: '));
      expect(degraded.length).toBeGreaterThan(0);
      for (const answer of before) {
        expect(answer.status).toBe(200);
        expect(['OK', 'Degraded']).toContain(answer.body.status);
      }
      for (const { body } of degraded) {
        const silent = /^degraded: the store has not answered for (\d+\.\d) s \(unavailable after 6\.0 s\)$/.exec(
          body.dbStatus ?? '',
        );
        expect(silent, body.dbStatus).not.toBeNull();
        expect(Number(silent![1])).toBeLessThan(TOLERANCE_S);
      }
      expect(down.body).toMatchObject({ status: 'Unavailable', mqStatus: 'success' });
      expect(down.body.dbStatus).toMatch(/^unavailable: the store has not answered for (\d+\.\d) s$/);
      expect(Number(/for (\d+\.\d) s/.exec(down.body.dbStatus ?? '')![1])).toBeGreaterThanOrEqual(TOLERANCE_S);

      // Intake refuses at once rather than hold the request on a write that cannot be answered.
      const refused = new TestDid(node.url);
      const intake = await fetch(`${node.url}/sidetree/v1/operations`, {
        method: 'POST',
        body: serializeRequest(refused.created.request),
        headers: { 'content-type': 'application/json' },
      });
      expect(intake.status).toBe(503);
      expect(intake.headers.get('retry-after')).toBe('5');
      expect(await intake.text()).toMatch(/database has not answered/);

      // The connections the blackhole silenced stay silent after restore (TcpProxy, like a middlebox that dropped
      // their state): the ping in flight on one ends when the driver gives up on that connection, at the adapter's
      // 30 s deadline (which replaces the client) at the latest; the next ping goes out on a new connection.
      proxy.restore();
      const restoredAt = Date.now();
      await waitFor(
        async () => {
          const answer = await health(node);
          return answer.status === 200 && answer.body.status === 'OK' ? answer : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 200, description: '/healthcheck answering 200 OK after restore' },
      );
      console.info(`database stall test: /healthcheck OK again ${Date.now() - restoredAt} ms after restore`);

      const accepted = await waitFor(
        async () => {
          const result = await postOperation(node.url, refused.created.request);
          return result.status === 200 ? result : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, description: 'intake accepting after restore' },
      );
      expect(accepted.status).toBe(200);
      await waitPublished(node.url, refused.did, 1, 60_000);
    },
    5 * 60_000,
  );
});
