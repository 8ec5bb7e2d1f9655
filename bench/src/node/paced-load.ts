import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LoadResult } from './http-load.js';

/**
 * An open-loop load held at a fixed rate: request i is due at start + i / rate, whatever happened to the
 * ones before it, and its latency runs from when it was due to when its response ended. A slow answer
 * therefore delays no later request (no coordinated omission), and requests that wait for a free
 * connection count that wait. Requests go out over at most `connections` keep-alive connections, one
 * request in flight on each (no pipelining).
 *
 * Why not autocannon's `overallRate`: it gives each connection a per-second quota that it sends back to
 * back at the start of every second, so a held rate becomes bursts at full concurrency followed by
 * silence, and work the server defers (anchoring, here) lands in the silence.
 *
 * Why raw sockets rather than node:http: the generator shares the two cores with the node it measures, and
 * writing prepared request heads and reading only the status line and the body's framing costs half the CPU
 * of node:http's client per request (figures in the node README, Performance).
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
  const total = Math.round(options.durationS * options.ratePerSecond);
  const intervalMs = 1000 / options.ratePerSecond;
  const latenciesMs: number[] = [];
  const idle: Connection[] = [];
  const all = new Set<Connection>();
  const waiting: Due[] = [];
  let ok = 0;
  let failures = 0;
  let sent = 0;
  let settled = 0;
  let lastAnswer = 0;
  const start = performance.now() + 10;

  return new Promise<LoadResult>((resolve) => {
    const answered = (due: Due, status: number | undefined): void => {
      lastAnswer = performance.now();
      if (status !== undefined && status >= 200 && status < 300) {
        ok++;
        latenciesMs.push(lastAnswer - due.at);
        options.onOk?.(due.request, Date.now());
      } else failures++;
      if (++settled < total) return;
      for (const connection of all) connection.socket.destroy();
      resolve({ rate: ok / ((lastAnswer - start) / 1000), ok, failures, latenciesMs });
    };
    const free = (connection: Connection): void => {
      const due = waiting.shift();
      if (due) connection.send(due);
      else idle.push(connection);
    };
    const open = (): Connection => {
      const connection = new Connection(url, answered, free, (closed) => {
        all.delete(closed);
        const at = idle.indexOf(closed);
        if (at >= 0) idle.splice(at, 1);
        // Requests queued for a free connection get a new one when this one is gone.
        if (waiting.length > 0 && all.size < options.connections) free(open());
      });
      all.add(connection);
      return connection;
    };
    const send = (index: number): void => {
      const due: Due = { at: start + index * intervalMs, request: options.next() };
      // The connection idle longest goes first, so requests spread over every connection as they would from
      // independent clients rather than reusing the few most recently freed.
      const connection = idle.shift() ?? (all.size < options.connections ? open() : undefined);
      if (connection) connection.send(due);
      else waiting.push(due);
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

interface Due {
  /** When the request was due (performance.now()). */
  at: number;
  request: { method: 'GET' | 'POST'; path: string; body?: Buffer };
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/**
 * One keep-alive HTTP/1.1 connection: writes a request, reads the response's status and framing
 * (Content-Length or chunked), and hands the connection back, unless the server said it closes it. A
 * response it cannot frame, or a socket that closes with a request in flight, fails that request and drops
 * the connection.
 */
class Connection {
  readonly socket: Socket;
  private current: Due | undefined;
  private pending: Buffer = Buffer.alloc(0);
  private status = 0;
  /** Body bytes still to come (Content-Length), -1 while reading the head, -2 while reading chunks. */
  private remaining = -1;
  private lastOnThisConnection = false;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly answered: (due: Due, status: number | undefined) => void,
    private readonly free: (connection: Connection) => void,
    private readonly gone: (connection: Connection) => void,
  ) {
    this.socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    this.socket.on('data', (data: Buffer) => {
      this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data]);
      this.read();
    });
    this.socket.on('error', () => this.close());
    this.socket.on('close', () => this.close());
  }

  send(due: Due): void {
    this.current = due;
    const { method, path, body } = due.request;
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${this.url.host}\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : ''}\r\n`;
    this.socket.write(body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1'));
  }

  private read(): void {
    for (;;) {
      if (this.remaining === -1) {
        const end = this.pending.indexOf(HEAD_END);
        if (end < 0) return;
        const head = this.pending.toString('latin1', 0, end);
        this.pending = this.pending.subarray(end + HEAD_END.length);
        this.status = Number(head.slice(9, 12));
        this.lastOnThisConnection = /\r\nconnection:[ \t]*close/i.test(head);
        const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
        if (length) this.remaining = Number(length[1]);
        else if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) this.remaining = -2;
        else return this.fail();
      }
      if (this.remaining === -2) {
        const done = this.skipChunks();
        if (done === undefined) return this.fail();
        if (!done) return;
      } else {
        if (this.pending.length < this.remaining) return;
        this.pending = this.pending.subarray(this.remaining);
      }
      this.remaining = -1;
      const due = this.current;
      this.current = undefined;
      if (due) this.answered(due, this.status);
      // The server closes after this answer: the next request must not be written to this socket.
      if (this.lastOnThisConnection) return this.fail();
      this.free(this);
      if (this.pending.length === 0) return;
    }
  }

  /** Consumes whole chunks: true after the last one (and its empty trailer), false for more bytes, undefined if malformed. */
  private skipChunks(): boolean | undefined {
    for (;;) {
      const lineEnd = this.pending.indexOf(CRLF);
      if (lineEnd < 0) return false;
      const size = Number.parseInt(this.pending.toString('latin1', 0, lineEnd), 16);
      if (!Number.isFinite(size) || size < 0) return undefined;
      const need = lineEnd + CRLF.length + size + CRLF.length;
      if (this.pending.length < need) return false;
      this.pending = this.pending.subarray(need);
      if (size === 0) return true;
    }
  }

  private fail(): void {
    this.socket.destroy();
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    const due = this.current;
    this.current = undefined;
    if (due) this.answered(due, undefined);
    this.gone(this);
  }
}
