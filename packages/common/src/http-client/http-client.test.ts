import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError, isRetryable } from '../errors/index.js';
import type { OutboundRequest } from '../http/principal.js';
import { createHttpClient, peerStatusOf, type HttpClient } from './index.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A plain node:http peer whose behaviour is chosen by path, recording what it received. */
async function startPeer(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const path = (req.url ?? '').split('?')[0] ?? '';
    const status = /^\/status\/(\d+)$/.exec(path);
    if (status) {
      res
        .writeHead(Number(status[1]), { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: `peer says ${status[1]}` }));
    } else if (path === '/orb-error') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errMessage":"no such resource"}');
    } else if (path === '/text-error') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error.\n');
    } else if (path === '/hang') {
      // never answers
    } else if (path === '/reset') {
      req.socket.destroy();
    } else if (path === '/cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20);
    } else if (path === '/redirect') {
      res.writeHead(302, { location: '/echo' }).end();
    } else if (path === '/not-json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>');
    } else if (path === '/empty') {
      res.writeHead(204).end();
    } else if (path === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(4096));
    } else {
      res
        .writeHead(201, { 'content-type': 'application/json', 'x-extra': 'yes' })
        .end(JSON.stringify({ method: req.method, body: body.toString('utf8') }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the request to fail');
}

let peer: Awaited<ReturnType<typeof startPeer>>;
let client: HttpClient;
beforeEach(async () => {
  peer = await startPeer();
  client = createHttpClient({ timeoutMs: 2_000 });
});
afterEach(async () => {
  client.close();
  await peer.close();
});

describe('http client', () => {
  it('sends JSON and reads JSON, status and headers', async () => {
    const response = await client.post<{ method: string; body: string }>(
      `${peer.url}/echo`,
      { a: 1, b: 'é' },
      { headers: { 'Content-Type': 'application/activity+json' } },
    );
    expect(response.status).toBe(201);
    expect(response.headers['x-extra']).toBe('yes');
    expect(response.data).toEqual({ method: 'POST', body: '{"a":1,"b":"é"}' });
    expect(peer.received[0]?.headers['content-type']).toBe('application/activity+json');
    expect(peer.received[0]?.headers.accept).toBe('application/json');
  });

  it('reads text, bytes and empty bodies', async () => {
    expect((await client.get(`${peer.url}/big`, { responseType: 'text' })).data).toHaveLength(4096);
    expect(Buffer.isBuffer((await client.get(`${peer.url}/big`, { responseType: 'buffer' })).data)).toBe(true);
    const empty = await client.get(`${peer.url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.data).toBeUndefined();
  });

  it('reuses connections (keep-alive)', async () => {
    await client.get(`${peer.url}/echo`);
    await client.get(`${peer.url}/echo`);
    expect(peer.received.map((r) => r.headers.connection)).toEqual(['keep-alive', 'keep-alive']);
  });

  it('closes idle pooled connections before the server would', async () => {
    const server = http.createServer((_req, res) => res.end('{}'));
    server.keepAliveTimeout = 60_000;
    let closed = 0;
    server.on('connection', (socket) => socket.on('close', () => closed++));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const idle = createHttpClient({ idleSocketMs: 200 });
    try {
      await idle.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(closed).toBe(1);
    } finally {
      idle.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sends a request again when a reused connection turns out closed, and only then', async () => {
    // Answers the first request on each connection and resets the connection on the second, as a server
    // whose keep-alive ended while the request was on its way.
    let requests = 0;
    const server = net.createServer((socket) => {
      let seen = 0;
      socket.on('data', () => {
        requests++;
        if (++seen === 1)
          socket.write(
            'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}',
          );
        else socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/activity`;
    try {
      await client.post(target, { n: 1 });
      expect((await client.post(target, { n: 2 })).status).toBe(200);
      expect(requests).toBe(3);
    } finally {
      server.close();
    }
    // A reset on a fresh connection is the peer's answer, not a stale socket: no second try.
    const error = await failureOf(client.get(`${peer.url}/reset`));
    expect(error.message).toMatch(/ECONNRESET|socket hang up/);
    expect(peer.received.filter((r) => r.url === '/reset')).toHaveLength(1);
  });

  it('sends a bearer token chosen per target, overridable per request', async () => {
    const tokens = createHttpClient({
      bearerToken: (url) => (url.pathname.startsWith('/vct') ? 'vct-write' : undefined),
    });
    try {
      await tokens.get(`${peer.url}/vct/add`);
      await tokens.get(`${peer.url}/other`);
      await tokens.get(`${peer.url}/other`, { token: 'explicit' });
    } finally {
      tokens.close();
    }
    expect(peer.received.map((r) => r.headers.authorization)).toEqual([
      'Bearer vct-write',
      undefined,
      'Bearer explicit',
    ]);
  });
});

describe('failure classification against a real peer', () => {
  it.each([500, 502, 503, 504])('%d is retryable', async (status) => {
    const error = await failureOf(client.get(`${peer.url}/status/${status}`));
    expect(isRetryable(error)).toBe(true);
    expect(peerStatusOf(error)).toBe(status);
    expect(error.message).toBe(
      `GET ${peer.url}/status/${status}: ${status} ${http.STATUS_CODES[status]}: peer says ${status}`,
    );
  });

  it.each([
    [400, 'bad_request', 400],
    [401, 'unauthorized', 401],
    [403, 'forbidden', 403],
    [404, 'not_found', 404],
    [409, 'conflict', 409],
    [410, 'bad_request', 400],
    [422, 'unprocessable', 422],
  ])('%d is permanent with the peer status and message', async (status, code, ownStatus) => {
    const error = await failureOf(client.post(`${peer.url}/status/${status}`, {}));
    expect(isRetryable(error)).toBe(false);
    expect(error.code).toBe(code);
    expect(error.status).toBe(ownStatus);
    expect(peerStatusOf(error)).toBe(status);
    expect(error.message).toContain(`peer says ${status}`);
  });

  it('answers the statuses a caller names as responses, with the body parsed, and throws the others', async () => {
    const answered = await client.request<{ message: string }>(`${peer.url}/status/400`, {
      method: 'POST',
      json: {},
      answerStatuses: [400],
    });
    expect(answered.status).toBe(400);
    expect(answered.data).toEqual({ message: 'peer says 400' });
    expect(peerStatusOf(await failureOf(client.request(`${peer.url}/status/409`, { answerStatuses: [400] })))).toBe(
      409,
    );
  });

  it.each([408, 429])('%d asks to retry later', async (status) => {
    expect(isRetryable(await failureOf(client.get(`${peer.url}/status/${status}`)))).toBe(true);
  });

  it("reads Orb's error bodies", async () => {
    expect((await failureOf(client.get(`${peer.url}/orb-error`))).message).toMatch(
      /: 404 Not Found: no such resource$/,
    );
    expect((await failureOf(client.get(`${peer.url}/text-error`))).message).toMatch(
      /: 500 Internal Server Error: Internal Server Error\.$/,
    );
  });

  it('treats a refused connection as retryable', async () => {
    const closed = await startPeer();
    await closed.close();
    const error = await failureOf(client.get(`${closed.url}/echo`));
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(peerStatusOf(error)).toBeUndefined();
  });

  it('treats a reset connection as retryable', async () => {
    const error = await failureOf(client.get(`${peer.url}/reset`));
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toMatch(/ECONNRESET|socket hang up/);
  });

  it('times out with a retryable error', async () => {
    const started = Date.now();
    const error = await failureOf(client.get(`${peer.url}/hang`, { timeoutMs: 200 }));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error.code).toBe('timeout');
    expect(isRetryable(error)).toBe(true);
    expect(error.message).toBe(`GET ${peer.url}/hang: no response within 200 ms`);
  });

  it('does not retry responses it cannot use', async () => {
    expect(isRetryable(await failureOf(client.get(`${peer.url}/not-json`)))).toBe(false);
    const small = createHttpClient({ maxResponseBytes: 1024 });
    try {
      const error = await failureOf(small.get(`${peer.url}/big`, { responseType: 'text' }));
      expect(isRetryable(error)).toBe(false);
      expect(error.message).toMatch(/maxContentLength/);
    } finally {
      small.close();
    }
    expect(isRetryable(await failureOf(client.get('not a url')))).toBe(false);
  });

  it('follows a redirected POST as a GET without its body', async () => {
    const answer = await client.post<{ method: string; body: string }>(`${peer.url}/redirect`, { x: 1 });
    expect(answer.data).toEqual({ method: 'GET', body: '' });
    expect(peer.received.map((r) => r.method)).toEqual(['POST', 'GET']);
    expect(peer.received[1]?.headers['content-length']).toBeUndefined();
  });

  it('fails retryably when the response is cut off', async () => {
    const error = await failureOf(client.get(`${peer.url}/cut`));
    expect(isRetryable(error)).toBe(true);
  });

  it('follows redirects for unsigned requests only', async () => {
    expect((await client.get(`${peer.url}/redirect`)).status).toBe(201);
    const signing = createHttpClient({ signer: async () => ({ signature: 'x' }) });
    try {
      const error = await failureOf(signing.get(`${peer.url}/redirect`));
      expect(peerStatusOf(error)).toBe(302);
      expect(isRetryable(error)).toBe(false);
    } finally {
      signing.close();
    }
  });
});

describe('request signing', () => {
  /** A signer that commits to the body bytes and the headers it was shown, like an HTTP signature does. */
  function digestSigner(seen: OutboundRequest[]) {
    return async (request: OutboundRequest) => {
      seen.push(request);
      const digest = `SHA-256=${createHash('sha256')
        .update(request.body ?? Buffer.alloc(0))
        .digest('base64')}`;
      const covered = Object.entries(request.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n');
      return {
        Digest: digest,
        Signature: createHash('sha256')
          .update(`${request.method} ${request.url}\n${covered}\n${digest}`)
          .digest('base64'),
      };
    };
  }

  it('signs the exact bytes and headers that are sent', async () => {
    const seen: OutboundRequest[] = [];
    const signing = createHttpClient({ signer: digestSigner(seen), userAgent: 'anchor-test' });
    try {
      await signing.post(
        `${peer.url}/services/node/inbox?x=1`,
        { type: 'Follow', actor: 'https://a.example/services/node' },
        {
          headers: { 'content-type': 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"' },
        },
      );
    } finally {
      signing.close();
    }
    const got = peer.received[0] as Received;
    const signed = seen[0] as OutboundRequest;
    expect(signed.method).toBe('POST');
    expect(signed.url).toBe(`${peer.url}/services/node/inbox?x=1`);
    expect(signed.body?.equals(got.body)).toBe(true);
    expect(got.headers.digest).toBe(`SHA-256=${createHash('sha256').update(got.body).digest('base64')}`);
    for (const [name, value] of Object.entries(signed.headers)) expect(got.headers[name], name).toBe(value);
    expect(signed.headers.host).toBe(new URL(peer.url).host);
    expect(got.headers.signature).toBeDefined();
  });

  it('signs only what shouldSign selects, unless a request says otherwise', async () => {
    const seen: OutboundRequest[] = [];
    const signing = createHttpClient({
      signer: digestSigner(seen),
      shouldSign: ({ url }) => url.pathname.endsWith('/inbox'),
    });
    try {
      await signing.get(`${peer.url}/public`);
      await signing.post(`${peer.url}/inbox`, { a: 1 });
      await signing.get(`${peer.url}/public`, { sign: true });
    } finally {
      signing.close();
    }
    expect(peer.received.map((r) => r.headers.signature !== undefined)).toEqual([false, true, true]);
    expect(seen[1]?.body).toBeUndefined();
  });

  it('retries retryable failures per its policy, signing each attempt afresh, and nothing else', async () => {
    const seen: OutboundRequest[] = [];
    const retrying = createHttpClient({
      signer: digestSigner(seen),
      retry: { attempts: 3, initialMs: 10, multiplier: 2, maxMs: 100 },
    });
    try {
      expect(peerStatusOf(await failureOf(retrying.post(`${peer.url}/status/503`, {})))).toBe(503);
      expect(peer.received).toHaveLength(3);
      expect(seen).toHaveLength(3);
      expect(peerStatusOf(await failureOf(retrying.post(`${peer.url}/status/400`, {})))).toBe(400);
      expect(peer.received).toHaveLength(4);
      expect(peerStatusOf(await failureOf(retrying.post(`${peer.url}/status/429`, {}, { retry: false })))).toBe(429);
      expect(peer.received).toHaveLength(5);
      expect(peerStatusOf(await failureOf(retrying.get(`${peer.url}/status/429`)))).toBe(429);
      expect(peer.received).toHaveLength(8);
    } finally {
      retrying.close();
    }
  });

  it('succeeds on a later attempt when the peer recovers', async () => {
    let calls = 0;
    const server = http.createServer((_req, res) => {
      calls++;
      if (calls < 3) res.writeHead(502).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const retrying = createHttpClient({ retry: { attempts: 3, initialMs: 5, multiplier: 1, maxMs: 5 } });
    try {
      const { data } = await retrying.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(data).toEqual({ ok: true });
      expect(calls).toBe(3);
    } finally {
      retrying.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
