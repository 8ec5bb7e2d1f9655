import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { KeyPair } from '../crypto/index.js';
import { errorMessage, statusOf } from '../errors/index.js';
import type { Principal, SignatureAuthenticator } from '../http/principal.js';
import { servicePublicKeyDocument } from './key-document.js';
import { signatureMiddleware } from './middleware.js';

/**
 * Real loopback servers for the httpsig tests: a peer that serves key and actor documents (and counts fetches),
 * and a receiver app guarded by the signature middleware.
 */
export interface Peer {
  url: string;
  /** Serves `body` as JSON at `path`, or answers with a bare status; `hang` never answers. */
  serve(path: string, response: { json: unknown } | { status: number } | 'hang'): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startPeer(): Promise<Peer> {
  const routes = new Map<string, { json: unknown } | { status: number } | 'hang'>();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route === 'hang') return;
    if (!route || 'status' in route) {
      res.writeHead(route?.status ?? 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(route.json));
  });
  const url = await listen(server);
  return {
    url,
    serve: (path, response) => routes.set(path, response),
    hits: (path) => hits.get(path) ?? 0,
    close: () => close(server),
  };
}

export interface ServiceFixture {
  serviceId: string;
  keyId: string;
  keyPath: string;
  actorPath: string;
  /** Publishes (or republishes, e.g. after rotation) the key document and the actor naming it. */
  publish(key: KeyPair, actorKey?: unknown): void;
}

/** A service `<peer>/services/<name>` with its key at `/keys/main-key`, as the spec lays them out. */
export function serviceOn(peer: Peer, name: string, key: KeyPair): ServiceFixture {
  const actorPath = `/services/${name}`;
  const serviceId = `${peer.url}${actorPath}`;
  const keyPath = `${actorPath}/keys/main-key`;
  const fixture: ServiceFixture = {
    serviceId,
    keyId: `${peer.url}${keyPath}`,
    keyPath,
    actorPath,
    publish(publishedKey, actorKey) {
      const keyDocument = servicePublicKeyDocument({ serviceId, key: publishedKey });
      peer.serve(keyPath, { json: keyDocument });
      peer.serve(actorPath, {
        json: {
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id: serviceId,
          type: 'Service',
          inbox: `${serviceId}/inbox`,
          publicKey: actorKey ?? keyDocument,
        },
      });
    },
  };
  fixture.publish(key);
  return fixture;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

/**
 * An express app that keeps the raw body (as the HTTP kit does), verifies signatures on every route, and
 * echoes the principal and body it saw; errors are mapped to `{message}` with the AppError's status.
 */
export async function startReceiver(
  authenticate: SignatureAuthenticator,
  options: { required?: boolean } = {},
): Promise<Receiver> {
  const app = express();
  const keepRawBody = (req: object, _res: unknown, buf: Buffer) => ((req as { rawBody?: Buffer }).rawBody = buf);
  app.use(express.json({ type: ['application/json', 'application/*+json'], verify: keepRawBody }));
  app.use(express.urlencoded({ extended: false, verify: keepRawBody }));
  app.use(signatureMiddleware(authenticate, options));
  app.all('/{*path}', (req, res) => {
    res.json({
      principal: (req as { principal?: Principal }).principal,
      body: req.body as unknown,
      digest: req.headers.digest ?? null,
    });
  });
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(statusOf(error)).json({ message: errorMessage(error) });
  });
  const server = createServer(app);
  const url = await listen(server);
  return { url, close: () => close(server) };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
