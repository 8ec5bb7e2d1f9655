import { freePort, waitFor } from '@anchor/testing/process';
import { serializeRequest } from '@anchor/sidetree';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestNode, TestDid, waitPublished, type TestNode } from '../testing/test-node.js';

/** A batch that keeps failing (the log down) fills the queue to --max-queued-operations, then intake says 503. */
describe('bounded anchoring queue', () => {
  let node: TestNode | undefined;
  afterEach(async () => {
    await node?.stop();
    node = undefined;
  });

  it('refuses operations with 503 and Retry-After while batches keep failing, and reopens once they publish', async () => {
    node = await startTestNode({
      args: [
        '--max-queued-operations',
        '5',
        '--batch-writer-timeout',
        '50ms',
        '--mq-redelivery-initial-interval',
        '50ms',
        '--mq-redelivery-max-interval',
        '200ms',
      ],
    });
    const url = node.url;
    const setLog = (value: string) =>
      fetch(`${url}/log`, { method: 'POST', body: value, headers: { 'content-type': 'text/plain' } });
    expect((await setLog(`http://127.0.0.1:${await freePort()}/main`)).status).toBe(200);
    const post = (did: TestDid) =>
      fetch(`${url}/sidetree/v1/operations`, {
        method: 'POST',
        body: serializeRequest(did.created.request),
        headers: { 'content-type': 'application/json' },
      });
    const queue = await node.server.context.storage.open('operation-queue');
    const failures = async () => {
      const text = await (await fetch(`${url}/metrics`, { headers: { accept: 'text/plain' } })).text();
      return [...text.matchAll(/^node_anchor_step_failures_total\{status="built"\} (\d+)/gm)].reduce(
        (sum, m) => sum + Number(m[1]),
        0,
      );
    };

    const dids = Array.from({ length: 8 }, () => new TestDid(url));
    const statuses: number[] = [];
    for (const did of dids) {
      const response = await post(did);
      statuses.push(response.status);
      if (response.status === 503) {
        expect(response.headers.get('retry-after')).toBe('5');
        expect(((await response.json()) as { message: string }).message).toMatch(/--max-queued-operations/);
      } else await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 503, 503, 503]);
    // The failing batches are retried with backoff and counted; the queue does not grow past its bound.
    await waitFor(async () => (await failures()) >= 3, { timeoutMs: 10_000, description: 'three failed sign steps' });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await post(dids[5]!)).status).toBe(503);
    expect(await queue.count()).toBe(5);

    // The log is back: everything acknowledged is published, and intake takes operations again.
    expect((await setLog('')).status).toBe(200);
    for (const did of dids.slice(0, 5)) await waitPublished(url, did.did);
    await waitFor(async () => (await post(dids[5]!)).status === 200, {
      timeoutMs: 10_000,
      description: 'intake to reopen',
    });
    await waitPublished(url, dids[5]!.did);
  }, 60_000);
});
