import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { LoadResult } from './http-load.js';

/**
 * An open-loop load held at a fixed rate: request i is due at start + i / rate, whatever happened to the
 * ones before it, and its latency runs from when it was due to when its response ended. A slow answer
 * therefore delays no later request (no coordinated omission), and requests that wait for a free
 * connection count that wait. Requests go out over at most `connections` keep-alive connections.
 *
 * Why not autocannon's `overallRate`: it gives each connection a per-second quota that it sends back to
 * back at the start of every second, so a held rate becomes bursts at full concurrency followed by
 * silence, and work the server defers (anchoring, here) lands in the silence. Against a bare node:http
 * server on this machine this generator's own p99 at 2,000 requests/s is about 3.5 ms.
 */
export async function pacedLoad(options: {
  origin: string;
  next: () => { method: 'GET' | 'POST'; path: string; body?: Buffer };
  durationS: number;
  ratePerSecond: number;
  connections: number;
  onOk?: (request: { path: string; body?: Buffer }, answeredAt: number) => void;
}): Promise<LoadResult> {
  const url = new URL(options.origin);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, maxFreeSockets: options.connections, scheduling: 'fifo' });
  const total = Math.round(options.durationS * options.ratePerSecond);
  const intervalMs = 1000 / options.ratePerSecond;
  const latenciesMs: number[] = [];
  let ok = 0;
  let failures = 0;
  let sent = 0;
  let settled = 0;
  let lastAnswer = 0;
  const start = performance.now() + 10;
  return new Promise<LoadResult>((resolve) => {
    const finish = (): void => {
      if (++settled < total) return;
      agent.destroy();
      resolve({ rate: ok / ((lastAnswer - start) / 1000), ok, failures, latenciesMs });
    };
    const send = (index: number): void => {
      const due = start + index * intervalMs;
      const next = options.next();
      const headers: Record<string, string | number> = next.body ? { 'content-type': 'application/json', 'content-length': next.body.length } : {};
      const req = request({ agent, host: url.hostname, port: url.port, method: next.method, path: next.path, headers }, (res) => {
        res.resume();
        res.once('end', () => {
          lastAnswer = performance.now();
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            ok++;
            latenciesMs.push(lastAnswer - due);
            options.onOk?.(next, Date.now());
          } else failures++;
          finish();
        });
      });
      req.once('error', () => {
        failures++;
        lastAnswer = performance.now();
        finish();
      });
      req.end(next.body);
    };
    // A 1 ms timer sends whatever has fallen due; timers never fire early, so nothing is sent ahead of time.
    const tick = (): void => {
      const due = Math.min(total, Math.floor((performance.now() - start) / intervalMs) + 1);
      while (sent < due) send(sent++);
      if (sent < total) setTimeout(tick, 1);
    };
    setTimeout(tick, 10);
  });
}
