/**
 * Misbehaving peers for fault tests, on 127.0.0.1: a server that accepts connections and never answers
 * (a hung follower), and an HTTP server whose every answer is a 200 with a body that is not what was asked
 * for (a log returning garbage), optionally after a delay (a witness answering after the deadline). Each
 * counts what it received, so a test can show the caller's retries stay bounded.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';

/** Accepts TCP connections on `port` (0: any) and never writes a byte; keeps them open until `close()`. */
export class SilentServer {
  /** Connections accepted so far, and how many are open now (the most at once in `peakOpen`). */
  accepted = 0;
  peakOpen = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: TcpServer,
    readonly port: number,
  ) {}

  static async listen(port = 0): Promise<SilentServer> {
    let self: SilentServer | undefined;
    const server = createTcpServer((socket) => {
      if (!self) return socket.destroy();
      self.accepted++;
      self.sockets.add(socket);
      self.peakOpen = Math.max(self.peakOpen, self.sockets.size);
      socket.on('error', () => undefined);
      socket.on('close', () => self?.sockets.delete(socket));
      // Reads are drained so the client's writes never block; nothing is ever written back.
      socket.resume();
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
    self = new SilentServer(server, (server.address() as { port: number }).port);
    return self;
  }

  get open(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Answers every request with `status` and `body` after `delayMs`; records each request's method and path. */
export class GarbageServer {
  readonly requests: Array<{ method: string; path: string; at: number }> = [];
  /** Requests not yet answered or abandoned, and the most at once. */
  open = 0;
  peakOpen = 0;

  private constructor(
    private readonly server: HttpServer,
    readonly url: string,
  ) {}

  /** `port` 0 (default): any free one. */
  static async listen(options: { port?: number; body?: string; status?: number; contentType?: string; delayMs?: number } = {}): Promise<GarbageServer> {
    let self: GarbageServer | undefined;
    const server = createHttpServer((request: IncomingMessage, response) => {
      self?.requests.push({ method: request.method ?? '', path: request.url ?? '', at: Date.now() });
      if (self) self.peakOpen = Math.max(self.peakOpen, ++self.open);
      response.on('close', () => self && self.open--);
      request.resume();
      const answer = () => {
        if (response.destroyed) return;
        response.writeHead(options.status ?? 200, { 'content-type': options.contentType ?? 'application/json' });
        response.end(options.body ?? '{"not": "what you asked for"');
      };
      if (options.delayMs) setTimeout(answer, options.delayMs).unref();
      else answer();
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', () => resolve()));
    self = new GarbageServer(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    return self;
  }

  /** Requests whose path starts with `prefix`. */
  count(prefix = '/'): number {
    return this.requests.filter((r) => r.path.startsWith(prefix)).length;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
