import { createServer, type Server } from 'node:net';
import { PROJECT_VERSION } from '@anchor/common/version';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, resolveDid, startTestNode, TestDid, type TestNode } from '../testing/test-node.js';

interface Health {
  status: number;
  body: {
    mqStatus: string;
    dbStatus: string;
    kmsStatus: string;
    vctStatus: string;
    currentTime: string;
    status: string;
    version: string;
  };
}

async function health(node: TestNode): Promise<Health> {
  const response = await fetch(`${node.url}/healthcheck`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as Health['body'] };
}

describe('health of a ready node', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ database: 'lmdb' });
  });
  afterAll(async () => {
    await node.stop();
  });

  it("answers any origin: other nodes' explorers show this node's health", async () => {
    const response = await fetch(`${node.url}/healthcheck`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('is 200 with every component status, the time and the version', async () => {
    const before = Date.now();
    const { status, body } = await health(node);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      mqStatus: 'success',
      dbStatus: 'success',
      kmsStatus: 'success',
      vctStatus: 'log endpoint not configured',
      status: 'OK',
      version: PROJECT_VERSION,
    });
    expect(body.currentTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(body.currentTime)).toBeGreaterThanOrEqual(before - 1_000);
  });
});

describe('health when the embedded database goes away and comes back', () => {
  let node: TestNode;
  afterAll(async () => {
    await node?.stop();
  });

  it('answers 503 with the ping error of the closed LMDB environment, and 200 again once it is reopened', async () => {
    node = await startTestNode({ database: 'lmdb' });
    await fetch(`${node.url}/allowedorigins`, {
      method: 'POST',
      body: JSON.stringify({ add: ['https://kept.example.com'] }),
      headers: { 'content-type': 'application/json' },
    });
    // LMDB has no server to lose: the real way its ping fails is an environment that is no longer open.
    await node.server.context.storage.close();
    const pingError = await node.server.context.storage.ping().then(
      () => 'ping succeeded',
      (error: Error) => error.message,
    );
    expect(pingError).toMatch(/lmdb .*closed/);
    const down = await health(node);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ dbStatus: pingError, mqStatus: 'success', status: 'Unavailable' });
    await node.stop();

    // The same data directory opened again: healthy, with what was stored before.
    node = await startTestNode({ database: 'lmdb', dir: node.dir });
    expect(await health(node)).toMatchObject({ status: 200, body: { dbStatus: 'success', status: 'OK' } });
    expect(await (await fetch(`${node.url}/allowedorigins`)).json()).toContain('https://kept.example.com');
  });
});

describe('vctStatus', () => {
  let closedPort: number;
  let holder: Server;
  beforeAll(async () => {
    // A port that is bound but never answers HTTP, then released: nothing listens there during the test.
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    closedPort = (holder.address() as { port: number }).port;
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('"disabled" and "log endpoint not configured" are not failures; a log that does not answer is', async () => {
    const disabled = await startTestNode({ args: ['--vct-enabled=false'] });
    const enabled = await startTestNode();
    try {
      expect(await health(disabled)).toMatchObject({ status: 200, body: { vctStatus: 'disabled' } });
      expect(await health(enabled)).toMatchObject({ status: 200, body: { vctStatus: 'log endpoint not configured' } });
      const logUrl = `http://127.0.0.1:${closedPort}/main`;
      expect(
        (await fetch(`${enabled.url}/log`, { method: 'POST', body: logUrl, headers: { 'content-type': 'text/plain' } }))
          .status,
      ).toBe(200);
      const failing = await health(enabled);
      expect(failing.status).toBe(503);
      expect(failing.body.vctStatus).toMatch(new RegExp(`^log ${logUrl} is unhealthy: `));
      expect(failing.body).toMatchObject({ dbStatus: 'success', mqStatus: 'success', status: 'Unavailable' });
      // Removing the log makes the node healthy again.
      await fetch(`${enabled.url}/log`, { method: 'POST', body: '', headers: { 'content-type': 'text/plain' } });
      expect(await health(enabled)).toMatchObject({ status: 200, body: { vctStatus: 'log endpoint not configured' } });
    } finally {
      await disabled.stop();
      await enabled.stop();
    }
  });
});

describe('maintenance mode', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ args: ['--enable-maintenance-mode'] });
  });
  afterAll(async () => {
    await node.stop();
  });

  it('answers 503 on operations, resolution and the inbox while health stays 200 saying Maintenance', async () => {
    const did = new TestDid(node.url);
    const follow = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      type: 'Follow',
      actor: 'https://peer.example.com/services/node',
      object: `${node.url}/services/node`,
    };
    const inbox = await fetch(`${node.url}/services/node/inbox`, {
      method: 'POST',
      body: JSON.stringify(follow),
      headers: { 'content-type': 'application/activity+json' },
    });
    const refused = {
      operations: await postOperation(node.url, did.created.request),
      resolution: await resolveDid(node.url, did.did),
      inbox: { status: inbox.status, body: (await inbox.json()) as unknown },
    };
    for (const [endpoint, reply] of Object.entries(refused))
      expect(reply, endpoint).toMatchObject({ status: 503, body: { message: 'the node is in maintenance mode' } });
    expect(await health(node)).toMatchObject({ status: 200, body: { status: 'Maintenance', dbStatus: 'success' } });
  });

  it('keeps the operator endpoints working', async () => {
    expect((await fetch(`${node.url}/allowedorigins`)).status).toBe(200);
    expect((await fetch(`${node.url}/services/node/acceptlist`)).status).toBe(200);
    expect((await fetch(`${node.url}/.well-known/did-orb`)).status).toBe(200);
    expect((await fetch(`${node.url}/metrics`)).status).toBe(200);
  });
});
