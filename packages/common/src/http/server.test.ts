import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHttpApp, startHttpServer } from './index.js';
import { serve } from './http.test-helpers.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface Answer {
  status: number;
  body: string;
  connection: string | undefined;
}

function get(url: string, agent?: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }),
        );
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

function connect(port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const settledWithin = async (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

/** An app with `/slow` (answers when released) and `/stream` (sends headers at once, ends when released). */
function slowApp() {
  const entered = deferred();
  const release = deferred();
  const http = createHttpApp();
  http.routes.get('/slow', async (_req, res) => {
    entered.resolve();
    await release.promise;
    res.type('text/plain').send('done');
  });
  http.routes.get('/stream', async (_req, res) => {
    res.type('text/plain').write('first ');
    entered.resolve();
    await release.promise;
    res.end('last');
  });
  http.routes.get('/fast', (_req, res) => {
    res.send('fast');
  });
  return { app: http.app, entered, release };
}

describe('startHttpServer', () => {
  it('binds port 0 on loopback and reports its URL', async () => {
    const { app } = slowApp();
    const server = await serve(app);
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect((await get(`${server.url}/fast`)).body).toBe('fast');
  });

  it('rejects with the reason when the port is taken', async () => {
    const { app } = slowApp();
    const first = await serve(app);
    await expect(startHttpServer(app, { host: '127.0.0.1', port: first.port })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${first.port}: listen EADDRINUSE`,
    );
  });

  it('lets an in-flight request finish while close() waits, and refuses new connections', async () => {
    const { app, entered, release } = slowApp();
    const server = await serve(app);
    const answer = get(`${server.url}/slow`);
    await entered.promise;

    const closed = server.close();
    expect(await connect(server.port)).toBe('ECONNREFUSED');
    expect(await settledWithin(closed, 200)).toBe(false);

    release.resolve();
    await expect(answer).resolves.toEqual({ status: 200, body: 'done', connection: 'close' });
    expect(await settledWithin(closed, 2_000)).toBe(true);
    expect(server.close()).toBe(closed);
  });

  it('finishes a response already streaming when close() is called', async () => {
    const { app, entered, release } = slowApp();
    const server = await serve(app);
    const answer = get(`${server.url}/stream`, new http.Agent({ keepAlive: true }));
    await entered.promise;
    const closed = server.close();
    release.resolve();
    expect((await answer).body).toBe('first last');
    expect(await settledWithin(closed, 2_000)).toBe(true);
  });

  it('closes idle keep-alive connections promptly', async () => {
    const { app } = slowApp();
    const server = await serve(app, { keepAliveTimeoutMs: 60_000 });
    const agent = new http.Agent({ keepAlive: true });
    expect((await get(`${server.url}/fast`, agent)).connection).toBe('keep-alive');
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    agent.destroy();
  });

  it('cuts requests still running after the shutdown timeout', async () => {
    const { app, entered } = slowApp();
    const server = await startHttpServer(app, { port: 0, shutdownTimeoutMs: 300 });
    const answer = get(`${server.url}/slow`);
    answer.catch(() => undefined);
    await entered.promise;
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it('serves HTTPS with a certificate and key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(join(dir, 'cert.pem'));
      const { app } = slowApp();
      const server = await serve(app, { tls: { cert, key: readFileSync(join(dir, 'key.pem')) } });
      expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get(`${server.url}/fast`, { ca: cert }, (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(body).toBe('fast');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
