import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { InFlightResponses } from './in-flight-responses.js';

export interface TlsOptions {
  /** PEM certificate chain (contents, not a path). */
  cert: string | Buffer;
  /** PEM private key (contents, not a path). */
  key: string | Buffer;
}

export interface HttpServerOptions {
  /** Default 127.0.0.1; `0.0.0.0` or `::` for all interfaces. */
  host?: string;
  /** Default 0: the OS picks a free port (see `port` of the result). */
  port?: number;
  /** Serve HTTPS with this certificate and key. */
  tls?: TlsOptions;
  /** How long `close()` lets in-flight requests run before cutting their connections. Default 10 s. */
  shutdownTimeoutMs?: number;
  /** Idle keep-alive connections are closed after this. Default 5 s (Node's default). */
  keepAliveTimeoutMs?: number;
  /** Time allowed to receive request headers. Default 60 s (Node's default). */
  headersTimeoutMs?: number;
}

export interface RunningHttpServer {
  /** Base URL clients can use (`http://127.0.0.1:43121`); wildcard hosts are shown as loopback. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly server: http.Server;
  /**
   * Graceful shutdown: stops accepting connections at once, closes idle keep-alive connections, lets
   * in-flight requests finish (their connections close after the response), and destroys whatever is
   * still open after `shutdownTimeoutMs`. Resolves when every connection is gone; calling it again
   * returns the same promise.
   */
  close(): Promise<void>;
}

/** Long-lived responses (event streams) the server ends as it starts closing, rather than waiting `shutdownTimeoutMs` for them. */
const endedAtClose = new WeakSet<ServerResponse>();

/** Marks a response that never ends by itself (a stream of events): `close()` ends it at once. */
export function endWhenServerCloses(res: ServerResponse): void {
  endedAtClose.add(res);
}

/** Listens with the app and resolves once the port is bound (rejects with the reason if it cannot be). */
export async function startHttpServer(
  app: RequestListener,
  options: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const server: http.Server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key })
    : http.createServer();
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  if (options.headersTimeoutMs !== undefined) server.headersTimeout = options.headersTimeoutMs;

  let closing: Promise<void> | undefined;
  const inFlight = new InFlightResponses<ServerResponse>();
  const closeIdleSoon = (): void => {
    setImmediate(() => server.closeIdleConnections());
  };
  // Registered before the app so the connection policy is set before any handler can respond.
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    const slot = inFlight.add(res);
    if (closing) res.setHeader('Connection', 'close');
    res.once('close', () => {
      inFlight.delete(slot);
      if (closing) closeIdleSoon();
    });
  });
  server.on('request', app);

  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error): void =>
      reject(new Error(`cannot listen on ${host}:${options.port ?? 0}: ${error.message}`, { cause: error }));
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });

  const port = (server.address() as AddressInfo).port;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      const deadline = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
      server.close(() => {
        clearTimeout(deadline);
        resolve();
      });
      for (const res of inFlight) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        else if (endedAtClose.has(res)) res.end();
      }
      server.closeIdleConnections();
    });
    return closing;
  };
  return { url: `${options.tls ? 'https' : 'http'}://${urlHost(host)}:${port}`, host, port, server, close };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
