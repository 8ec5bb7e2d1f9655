import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { peerFetchPolicy } from '../httpsig/index.js';
import {
  type FetchLike,
  checkDidWebHost,
  didWebToUrl,
  guardedDidWebFetch,
  resolveDidWeb,
  urlToDidWeb,
} from './index.js';

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

function syncErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError');
}

/** An in-process stand-in for the web: answers from a table and records what was asked. */
function fakeWeb(routes: Record<string, { status: number; body: string } | Error>): {
  fetch: FetchLike;
  requests: { url: string; init: Parameters<FetchLike>[1] }[];
} {
  const requests: { url: string; init: Parameters<FetchLike>[1] }[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({ url, init });
    const route = routes[url];
    if (route instanceof Error) throw route;
    if (!route) return { status: 404, text: async () => 'not found' };
    return { status: route.status, text: async () => route.body };
  };
  return { fetch, requests };
}

describe('did:web ↔ URL', () => {
  it.each([
    ['did:web:w3c-ccg.github.io', 'https://w3c-ccg.github.io/.well-known/did.json'],
    ['did:web:w3c-ccg.github.io:user:alice', 'https://w3c-ccg.github.io/user/alice/did.json'],
    ['did:web:example.com%3A3000:user:alice', 'https://example.com:3000/user/alice/did.json'],
    ['did:web:example.com%3a8443', 'https://example.com:8443/.well-known/did.json'],
    ['did:web:Example.COM', 'https://example.com/.well-known/did.json'],
    ['did:web:localhost%3A8080', 'http://localhost:8080/.well-known/did.json'],
    ['did:web:127.0.0.1%3A9000:vct', 'http://127.0.0.1:9000/vct/did.json'],
  ])('%s → %s', (did, url) => {
    expect(didWebToUrl(did)).toBe(url);
  });

  it('uses http for loopback only by default, everywhere when enabled, nowhere when disabled', () => {
    expect(didWebToUrl('did:web:example.com', { http: 'always' })).toBe('http://example.com/.well-known/did.json');
    expect(didWebToUrl('did:web:localhost', { http: 'never' })).toBe('https://localhost/.well-known/did.json');
    expect(didWebToUrl('did:web:localhost.example.com')).toBe('https://localhost.example.com/.well-known/did.json');
    expect(didWebToUrl('did:web:127.0.0.2')).toBe('https://127.0.0.2/.well-known/did.json');
  });

  it.each([
    ['https://w3c-ccg.github.io/.well-known/did.json', 'did:web:w3c-ccg.github.io'],
    ['https://w3c-ccg.github.io/user/alice/did.json', 'did:web:w3c-ccg.github.io:user:alice'],
    ['https://example.com:3000/user/alice/did.json', 'did:web:example.com%3A3000:user:alice'],
    ['https://example.com/user/alice/', 'did:web:example.com:user:alice'],
    ['https://example.com', 'did:web:example.com'],
    ['http://localhost:8080/.well-known/did.json', 'did:web:localhost%3A8080'],
  ])('%s → %s', (url, did) => {
    expect(urlToDidWeb(url)).toBe(did);
    expect(urlToDidWeb(didWebToUrl(did))).toBe(did);
  });

  it('rejects malformed did:web identifiers and URLs', () => {
    expect(syncErrorOf(() => didWebToUrl('did:key:z6Mk')).message).toBe('did:key:z6Mk is not a did:web');
    expect(syncErrorOf(() => didWebToUrl('did:web:exa_mple.com')).message).toContain(
      "'exa_mple.com' is not a valid host[:port]",
    );
    expect(syncErrorOf(() => didWebToUrl('did:web:-example.com')).message).toContain('is not a valid host[:port]');
    expect(syncErrorOf(() => didWebToUrl('did:web:example.com%3A99999')).message).toContain(
      "port '99999' is not a valid TCP port",
    );
    expect(syncErrorOf(() => didWebToUrl('did:web:example.com%3A0')).message).toContain("port '0'");
    expect(syncErrorOf(() => didWebToUrl('did:web:example.com%3A1%3A2')).message).toContain(
      'is not a valid host[:port]',
    );
    expect(syncErrorOf(() => didWebToUrl('did:web:example.com%2Fevil')).message).toContain(
      'only the port colon may be percent-encoded',
    );
    expect(syncErrorOf(() => didWebToUrl('did:web:user%40example.com')).message).toContain('only the port colon');
    expect(syncErrorOf(() => urlToDidWeb('ftp://example.com/did.json')).message).toContain('needs an http(s) URL');
    expect(syncErrorOf(() => urlToDidWeb('https://example.com/did.json?x=1')).message).toContain('no query');
    expect(syncErrorOf(() => urlToDidWeb('https://user:pw@example.com/')).message).toContain('credentials');
    expect(syncErrorOf(() => urlToDidWeb('https://[::1]/did.json')).message).toContain(
      'must be a domain name or IPv4 address',
    );
    expect(syncErrorOf(() => urlToDidWeb('not a url')).message).toBe("invalid URL 'not a url'");
  });
});

describe('resolveDidWeb through an injected fetch', () => {
  const did = 'did:web:example.com:issuers:1';
  const url = 'https://example.com/issuers/1/did.json';
  const document = { '@context': 'https://www.w3.org/ns/did/v1', id: did, verificationMethod: [] };

  it('fetches the document from its URL, asking for DID JSON and refusing redirects', async () => {
    const web = fakeWeb({ [url]: { status: 200, body: JSON.stringify(document) } });
    expect(await resolveDidWeb(did, { fetch: web.fetch })).toEqual(document);
    expect(web.requests).toHaveLength(1);
    expect(web.requests[0]!.url).toBe(url);
    expect(web.requests[0]!.init.headers.accept).toBe('application/did+json, application/json');
    expect(web.requests[0]!.init.redirect).toBe('error');
    expect(web.requests[0]!.init.signal).toBeInstanceOf(AbortSignal);
  });

  it('maps each failure to a precise error', async () => {
    const cases: [Record<string, { status: number; body: string } | Error>, string, string, boolean][] = [
      [{}, 'not_found', `${did} not found (${url} answered 404)`, false],
      [{ [url]: { status: 410, body: '' } }, 'not_found', 'answered 410', false],
      [{ [url]: { status: 503, body: '' } }, 'bad_gateway', `${url} answered 503 for ${did}`, true],
      [{ [url]: { status: 403, body: '' } }, 'bad_gateway', 'answered 403', false],
      [{ [url]: new TypeError('fetch failed') }, 'unavailable', `cannot fetch ${url} for ${did}: fetch failed`, true],
      [{ [url]: { status: 200, body: '<html>' } }, 'bad_gateway', 'is not JSON', false],
      [{ [url]: { status: 200, body: '[1]' } }, 'bad_gateway', 'is not a JSON object', false],
      [
        { [url]: { status: 200, body: JSON.stringify({ ...document, id: 'did:web:evil.com' }) } },
        'bad_gateway',
        `is for did:web:evil.com, not ${did}`,
        false,
      ],
      [
        { [url]: { status: 200, body: JSON.stringify({ ...document, padding: 'x'.repeat(2000) }) } },
        'bad_gateway',
        'is too large',
        false,
      ],
    ];
    for (const [routes, code, message, retryable] of cases) {
      const error = await errorOf(resolveDidWeb(did, { fetch: fakeWeb(routes).fetch, maxBytes: 1000 }));
      expect([error.code, error.retryable], message).toEqual([code, retryable]);
      expect(error.message).toContain(message);
    }
  });

  it('rejects a malformed DID before fetching anything', async () => {
    const web = fakeWeb({});
    expect((await errorOf(resolveDidWeb('did:web:bad host', { fetch: web.fetch }))).code).toBe('bad_request');
    expect(web.requests).toHaveLength(0);
  });
});

describe('resolveDidWeb against a real loopback server (default fetch, plain http for 127.0.0.1)', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/.well-known/did.json') {
        response.writeHead(200, { 'content-type': 'application/did+json' });
        response.end(JSON.stringify({ id: `did:web:127.0.0.1%3A${port}` }));
      } else if (request.url === '/moved/did.json') {
        response.writeHead(302, { location: '/.well-known/did.json' });
        response.end();
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('resolves, reports an absent document as not_found and does not follow redirects', async () => {
    expect(await resolveDidWeb(`did:web:127.0.0.1%3A${port}`)).toEqual({ id: `did:web:127.0.0.1%3A${port}` });
    expect((await errorOf(resolveDidWeb(`did:web:127.0.0.1%3A${port}:nobody`))).code).toBe('not_found');
    expect((await errorOf(resolveDidWeb(`did:web:127.0.0.1%3A${port}:moved`))).code).toBe('unavailable');
  });
});

describe('resolveDidWeb through the guarded fetch (DIDs a client names)', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      if (request.url === '/.well-known/did.json') {
        response.writeHead(200, { 'content-type': 'application/did+json' });
        response.end(JSON.stringify({ id: `did:web:127.0.0.1%3A${port}` }));
      } else if (request.url === '/moved/did.json') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        response.end();
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses link-local, private and (for a public service) loopback hosts with a 400, connecting nowhere', async () => {
    const strict = guardedDidWebFetch({
      policy: peerFetchPolicy({ devMode: false, ownEndpoint: 'https://vcs.example.com' }),
      // Names resolve here: no DNS traffic; a connection to these addresses would hang, not fail fast.
      lookup: ((host: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
        cb(null, [{ address: host === 'metadata.test' ? '169.254.169.254' : '10.0.0.7', family: 4 }])) as never,
    });
    const before = hits;
    for (const [did, text] of [
      ['did:web:169.254.169.254', '169.254.169.254, a link-local address: refused'],
      ['did:web:10.0.0.7%3A8443:issuer', '10.0.0.7, a private address: refused'],
      ['did:web:metadata.test', 'metadata.test resolves to 169.254.169.254, a link-local address: refused'],
      ['did:web:intranet.test', 'intranet.test resolves to 10.0.0.7, a private address: refused'],
      [`did:web:127.0.0.1%3A${port}`, 'http URLs are refused for did:web documents (https only)'],
    ] as const) {
      const started = Date.now();
      const error = await errorOf(resolveDidWeb(did, { fetch: strict }));
      expect(error.status, did).toBe(400);
      expect(error.message, did).toContain(`${did}: `);
      expect(error.message, did).toContain(text);
      expect(Date.now() - started, did).toBeLessThan(1_000);
      // Asked again within the failure TTL, still a 400 (not "failed recently", a 503).
      expect((await errorOf(resolveDidWeb(did, { fetch: strict }))).status, did).toBe(400);
    }
    expect(hits).toBe(before);
  });

  it('fetches a loopback peer of a loopback service, maps a 404 to not_found and does not follow a redirect', async () => {
    const local = guardedDidWebFetch({
      policy: peerFetchPolicy({ devMode: false, ownEndpoint: 'http://127.0.0.1:9' }),
    });
    expect(await resolveDidWeb(`did:web:127.0.0.1%3A${port}`, { fetch: local })).toEqual({
      id: `did:web:127.0.0.1%3A${port}`,
    });
    expect((await errorOf(resolveDidWeb(`did:web:127.0.0.1%3A${port}:nobody`, { fetch: local }))).code).toBe(
      'not_found',
    );
    const moved = await errorOf(resolveDidWeb(`did:web:127.0.0.1%3A${port}:moved`, { fetch: local }));
    expect(moved.code).toBe('bad_gateway');
    expect(moved.message).toMatch(/answered 302/);
  });
});

describe('checkDidWebHost (a did:web named now, resolved later)', () => {
  it("answers 400 where the service's guard would refuse the host, and nothing where it would not", async () => {
    const local = { devMode: false, listenHost: '127.0.0.1' };
    const publicService = { devMode: false, ownEndpoint: 'https://kms.example.com' };
    for (const [did, service, text] of [
      ['did:web:169.254.169.254', local, '169.254.169.254, a link-local address: refused'],
      ['did:web:10.1.2.3%3A8443:users:a', local, '10.1.2.3, a private address: refused'],
      ['did:web:127.0.0.1%3A1', publicService, '127.0.0.1, a loopback address: refused'],
      ['did:web:localhost', publicService, 'a loopback address: refused'],
    ] as const) {
      const error = await errorOf(checkDidWebHost(did, service));
      expect(error.status, did).toBe(400);
      expect(error.message, did).toContain(`${did}: `);
      expect(error.message, did).toContain(text);
    }
    await expect(checkDidWebHost('did:web:127.0.0.1%3A1', local)).resolves.toBeUndefined();
    await expect(checkDidWebHost('did:web:10.1.2.3', { devMode: true })).resolves.toBeUndefined();
  });
});
