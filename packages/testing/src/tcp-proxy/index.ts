/**
 * A loopback TCP proxy that tests put between a client and a server to simulate network failures:
 * `cut()` drops every open connection, `refuse()` makes new ones fail until `accept()`, `blackhole()` makes
 * every connection carry nothing (open ones and new ones, which are accepted) until `restore()`;
 * `answerDelayMs` holds back every chunk the server sends by that long (a slow server or network).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  private silent = false;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();

  private constructor(
    private readonly server: Server,
    private readonly answerDelayMs: number,
  ) {}

  static async start(
    target: { host: string; port: number },
    options: { answerDelayMs?: number } = {},
  ): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, options.answerDelayMs ?? 0);
    server.on('connection', (client: Socket) => proxy.pipe(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  private pipe(client: Socket, target: { host: string; port: number }): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    this.pairs.add(pair);
    if (this.silent) return;
    client.pipe(upstream);
    if (this.answerDelayMs === 0) upstream.pipe(client);
    // Timers of one delay fire in the order they were set: the chunks keep their order.
    else upstream.on('data', (chunk: Buffer) => setTimeout(() => client.write(chunk), this.answerDelayMs));
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy is not listening');
    return address.port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Drops every open connection (both directions), as a network failure would. */
  cut(): void {
    for (const s of this.sockets) s.destroy();
  }

  /**
   * Open connections stay open but carry nothing more, and new ones are accepted and carry nothing: a network
   * that drops every packet, where a request's answer never comes and nothing says so.
   */
  blackhole(): void {
    this.silent = true;
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** New connections carry data again; those the blackhole silenced stay silent until `cut()`. */
  restore(): void {
    this.silent = false;
  }

  refuse(): void {
    this.refusing = true;
  }

  accept(): void {
    this.refusing = false;
  }

  get connections(): number {
    return this.sockets.size / 2;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
