import net from 'node:net';

export interface SteadyLoadResult {
  /** Successful requests per second of the scheduled run. */
  rate: number;
  failures: number;
  /** Latency of every successful request (ms), from the tick it fell due at. */
  latenciesMs: number[];
}

interface Pending {
  path: string;
  dueAt: number;
}

/**
 * A steady-rate GET load over raw keep-alive sockets: every millisecond tick issues the requests that
 * have fallen due, each on an idle connection or, when all are busy, queued for the next one to free up
 * (so a slow answer delays what comes behind it, and that delay is measured). Latency runs from the
 * tick a request fell due at to the end of its response.
 *
 * Why not autocannon here: its rate limit is a per-second quota, so every connection sends as fast as it
 * can at the top of each second and then idles, which measures latency at saturation rather than at the
 * rate. Why not node:http: its client costs several times more CPU per request, and the service under test
 * shares the machine's two cores with the load generator.
 */
export async function steadyGetLoad(options: {
  origin: string;
  paths: () => string;
  ratePerSecond: number;
  durationS: number;
  connections: number;
}): Promise<SteadyLoadResult> {
  const { hostname, port } = new URL(options.origin);
  const host = `${hostname}:${port}`;
  const latenciesMs: number[] = [];
  const queue: Pending[] = [];
  const idle: Connection[] = [];
  let failures = 0;
  let outstanding = 0;
  let settle: (() => void) | undefined;

  class Connection {
    private readonly socket: net.Socket;
    private buffer: Buffer = Buffer.alloc(0);
    private current: Pending | undefined;

    private closed = false;

    constructor(ready: () => void, failed: (error: Error) => void) {
      this.socket = net.connect({ host: hostname, port: Number(port) }, ready);
      this.socket.setNoDelay(true);
      this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
      this.socket.on('error', failed);
      // A connection the server closes fails its request and leaves the pool for good.
      this.socket.on('close', () => {
        this.closed = true;
        const at = idle.indexOf(this);
        if (at >= 0) idle.splice(at, 1);
        this.fail();
        if (connectionsOpen() === 0) for (const request of queue.splice(0)) failRequest(request);
      });
    }

    get open(): boolean {
      return !this.closed;
    }

    send(request: Pending): void {
      if (this.closed) {
        failRequest(request);
        return;
      }
      this.current = request;
      this.socket.write(`GET ${request.path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
    }

    close(): void {
      this.socket.destroy();
    }

    private onData(chunk: Buffer): void {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const head = this.buffer.toString('latin1', 0, headerEnd);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const status = Number(head.slice(9, 12));
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      const finished = this.current;
      this.current = undefined;
      if (finished) {
        if (status === 200) latenciesMs.push(performance.now() - finished.dueAt);
        else failures++;
        done();
      }
      this.next();
    }

    private fail(): void {
      if (this.current) {
        failures++;
        this.current = undefined;
        done();
      }
    }

    next(): void {
      const request = queue.shift();
      if (request) this.send(request);
      else idle.push(this);
    }
  }

  const done = (): void => {
    outstanding--;
    if (outstanding === 0) settle?.();
  };
  const failRequest = (_request: Pending): void => {
    failures++;
    done();
  };
  const connectionsOpen = (): number => connections.filter((c) => c.open).length;

  const connections: Connection[] = await Promise.all(
    Array.from(
      { length: options.connections },
      () =>
        new Promise<Connection>((resolve, reject) => {
          const connection: Connection = new Connection(() => resolve(connection), reject);
        }),
    ),
  );
  idle.push(...connections);

  const startedAt = performance.now();
  const intervalMs = 1000 / options.ratePerSecond;
  const total = Math.round(options.ratePerSecond * options.durationS);
  let issued = 0;
  while (issued < total) {
    const now = performance.now();
    for (const due = Math.min(total, Math.floor((now - startedAt) / intervalMs) + 1); issued < due; issued++) {
      outstanding++;
      const request = { path: options.paths(), dueAt: now };
      const connection = idle.pop();
      if (connection) connection.send(request);
      else if (connectionsOpen() > 0) queue.push(request);
      else failRequest(request);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (outstanding > 0) await new Promise<void>((resolve) => (settle = resolve));
  for (const connection of connections) connection.close();
  // Over the scheduled window: every request issued in it counts once it has been answered.
  return { rate: latenciesMs.length / options.durationS, failures, latenciesMs };
}
