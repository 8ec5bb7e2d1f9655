import { waitFor } from '@anchor/testing/process';
import { serializeRequest } from '@anchor/sidetree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  postOperation,
  resolveDid,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';

/**
 * Intake while the store is silent: the in-process node's store ping hangs (as a MongoDB connection that
 * carries nothing does) until the test ends it with the adapter's deadline error. The FerretDB version of this,
 * a blackholed link, is services/node/test/health-dependencies.test.ts.
 */
describe('operation intake while the store is silent', () => {
  let node: TestNode;

  beforeAll(async () => {
    // A tolerance far beyond the test: /healthcheck reads Degraded throughout, whatever the machine's load.
    node = await startTestNode({ args: ['--database-stall-tolerance', '1h'] });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('answers 503 with Retry-After and queues nothing, then accepts and publishes once the store answers', async () => {
    const storage = node.server.context.storage;
    const answering = storage.ping.bind(storage);
    const hung: Array<(error: Error) => void> = [];
    storage.ping = () => new Promise<void>((_, reject) => hung.push(reject));

    const refused = new TestDid(node.url);
    const body = serializeRequest(refused.created.request);
    const queuedBefore = await node.server.services.stores.queued.count();
    // /healthcheck reading Degraded says a ping has gone unanswered past the probe's window (a second).
    const degraded = await waitFor(
      async () => {
        const response = await fetch(`${node.url}/healthcheck`);
        const report = (await response.json()) as Record<string, string>;
        return response.status === 200 && report.status === 'Degraded' ? report : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: '/healthcheck reading Degraded' },
    );
    expect(degraded.dbStatus).toMatch(/^degraded: the store has not answered for/);

    const response = await fetch(`${node.url}/sidetree/v1/operations`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const answer = { response, text: await response.text() };
    expect(response.status, answer.text).toBe(503);
    expect(answer.response.headers.get('retry-after')).toBe('5');
    expect(answer.text).toMatch(/the node's database has not answered for \d+\.\d s: the operation was not accepted/);
    expect(await node.server.services.stores.queued.count()).toBe(queuedBefore);
    // Not in the unpublished view either: nothing a batch could cut.
    expect((await resolveDid(node.url, refused.did)).status).toBe(404);

    // Within the tolerance the replica stays in the balancer's rotation.
    expect((await fetch(`${node.url}/healthcheck`)).status).toBe(200);

    // The adapter's deadline ends the hung ping; the next ping answers.
    storage.ping = answering;
    for (const reject of hung.splice(0)) reject(new Error('mongodb unavailable (ping): no answer within 30000 ms'));
    const accepted = await waitFor(
      async () => {
        const result = await postOperation(node.url, refused.created.request);
        return result.status === 200 ? result : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'intake accepting again' },
    );
    expect(accepted.status).toBe(200);
    await waitPublished(node.url, refused.did);
    expect((await resolveDid(node.url, refused.did)).status).toBe(200);
  });
});
