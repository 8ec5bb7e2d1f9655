import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyBinary, startHaproxy, type Haproxy } from './index.js';

const { reason } = await haproxyBinary();
if (reason) console.warn(`haproxy test skipped: ${reason}`);

/** A backend answering its name on every path; `/healthcheck` 200 while `healthy`. */
function backend(name: string): { server: Server; healthy: boolean; port: () => number } {
  const state = {
    healthy: true,
    server: createServer((req, res) => {
      if (req.url === '/healthcheck') res.writeHead(state.healthy ? 200 : 503).end();
      else res.end(name);
    }),
    port: () => (state.server.address() as AddressInfo).port,
  };
  return state;
}

describe.skipIf(reason !== undefined)('haproxy in front of replicas', () => {
  const backends = [backend('a'), backend('b')];
  let proxy: Haproxy;

  beforeAll(async () => {
    for (const b of backends) await new Promise<void>((resolve) => b.server.listen(0, '127.0.0.1', resolve));
    proxy = await startHaproxy({ backends: backends.map((b) => ({ port: b.port() })), checkIntervalMs: 100 });
    await proxy.waitForUp(2);
  });
  afterAll(async () => {
    await proxy?.stop();
    for (const b of backends) b.server.close();
  });

  it('balances round robin and takes a backend failing its health check out of rotation', async () => {
    const answers = async (n: number) =>
      Promise.all(Array.from({ length: n }, async () => (await fetch(`${proxy.url}/who`)).text()));
    const both = await answers(10);
    expect(both.filter((name) => name === 'a').length).toBe(5);
    expect(both.filter((name) => name === 'b').length).toBe(5);

    backends[1]!.healthy = false;
    await expect
      .poll(async () => (await proxy.backends()).find((state) => state.name === 'r1')?.status, { timeout: 5_000 })
      .toBe('DOWN');
    expect(new Set(await answers(6))).toEqual(new Set(['a']));

    backends[1]!.healthy = true;
    await proxy.waitForUp(2, 5_000);
  });
});
