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
  /** Connections accepted so far, and the most open at once. */
  accepted = 0;
  peakOpen = 0;
  port = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: TcpServer = createTcpServer((socket) => {
    this.accepted++;
    this.sockets.add(socket);
    this.peakOpen = Math.max(this.peakOpen, this.sockets.size);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
    // Reads are drained so the client's writes never block; nothing is ever written back.
    socket.resume();
  });

  static async listen(port = 0): Promise<SilentServer> {
    const silent = new SilentServer();
    await new Promise<void>((resolve, reject) =>
      silent.server.once('error', reject).listen(port, '127.0.0.1', () => resolve()),
    );
    silent.port = (silent.server.address() as { port: number }).port;
    return silent;
  }

  get open(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface GarbageOptions {
  /** 0 (default): any free port. */
  port?: number;
  body?: string;
  status?: number;
  contentType?: string;
  delayMs?: number;
}

/** Answers every request with `status` and `body` after `delayMs`; records each request's method and path. */
export class GarbageServer {
  readonly requests: Array<{ method: string; path: string; at: number }> = [];
  /** Requests not yet answered or abandoned, and the most at once. */
  open = 0;
  peakOpen = 0;
  url = '';
  private readonly server: HttpServer;

  private constructor(private readonly options: GarbageOptions) {
    this.server = createHttpServer((request: IncomingMessage, response) => {
      this.requests.push({ method: request.method ?? '', path: request.url ?? '', at: Date.now() });
      this.peakOpen = Math.max(this.peakOpen, ++this.open);
      response.on('close', () => this.open--);
      request.resume();
      const answer = () => {
        if (response.destroyed) return;
        response.writeHead(this.options.status ?? 200, {
          'content-type': this.options.contentType ?? 'application/json',
        });
        response.end(this.options.body ?? '{"not": "what you asked for"');
      };
      if (this.options.delayMs) setTimeout(answer, this.options.delayMs).unref();
      else answer();
    });
    this.server.keepAliveTimeout = 1_000;
  }

  static async listen(options: GarbageOptions = {}): Promise<GarbageServer> {
    const garbage = new GarbageServer(options);
    await new Promise<void>((resolve, reject) =>
      garbage.server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', () => resolve()),
    );
    garbage.url = `http://127.0.0.1:${(garbage.server.address() as { port: number }).port}`;
    return garbage;
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
