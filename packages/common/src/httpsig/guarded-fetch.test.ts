import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { classifyAddress, createGuardedFetch, createGuardedFetchJson, peerFetchPolicy } from './guarded-fetch.js';

const ACCEPT = 'application/json';
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback server; `hits` counts the requests that reached it. */
async function serve(
  handler: (path: string, res: ServerResponse) => void,
): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler(req.url ?? '/', res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

const signal = () => AbortSignal.timeout(10_000);
async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('classifyAddress', () => {
  it('knows the ranges a key fetch must not reach', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('10.1.2.3')).toBe('private');
    expect(classifyAddress('172.20.0.1')).toBe('private');
    expect(classifyAddress('192.168.1.1')).toBe('private');
    expect(classifyAddress('fd00::1')).toBe('private');
    expect(classifyAddress('169.254.169.254')).toBe('link-local');
    expect(classifyAddress('fe80::1')).toBe('link-local');
    expect(classifyAddress('0.0.0.0')).toBe('reserved');
    expect(classifyAddress('100.64.0.1')).toBe('reserved');
    expect(classifyAddress('224.0.0.1')).toBe('reserved');
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(classifyAddress('2606:4700::1111')).toBe('public');
  });
});

describe('the guarded key fetch', () => {
  it('refuses plain http outside what the policy allows, before any connection', async () => {
    const peer = await serve((_p, res) => res.end('{}'));
    const error = await failure(createGuardedFetchJson()(`${peer.url}/key`, { accept: ACCEPT, signal: signal() }));
    expect(error.message).toMatch(/http URLs are refused for key fetches \(https only\)/);
    expect(error.retryable).toBe(false);
    expect(peer.hits()).toBe(0);
    // Where http is allowed for loopback peers, it still is not for public addresses.
    const local = createGuardedFetchJson({ policy: { allowHttp: 'non-public', allowAddresses: ['loopback'] } });
    expect((await failure(local('http://8.8.8.8/key', { accept: ACCEPT, signal: signal() }))).message).toMatch(
      /plain http to 8\.8\.8\.8 \(8\.8\.8\.8, a public address\) is refused/,
    );
  });

  it('refuses loopback, private, link-local and reserved addresses, literal or resolved, without sending a packet', async () => {
    const fetchJson = createGuardedFetchJson({
      // Resolution is answered here: no DNS traffic, and no connection is ever attempted to these addresses.
      lookup: ((host: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
        cb(null, [
          {
            address: host === 'metadata.test' ? '169.254.169.254' : host === 'intranet.test' ? '10.0.0.7' : '127.0.0.1',
            family: 4,
          },
        ])) as never,
    });
    for (const [url, kind] of [
      ['https://127.0.0.1/key', 'loopback'],
      ['https://[::1]/key', 'loopback'],
      ['https://10.0.0.1/key', 'private'],
      ['https://192.168.0.10/key', 'private'],
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://0.0.0.0/key', 'reserved'],
      ['https://localhost/key', 'loopback'],
      ['https://metadata.test/key', 'link-local'],
      ['https://intranet.test/key', 'private'],
    ] as const) {
      const error = await failure(fetchJson(url, { accept: ACCEPT, signal: signal() }));
      expect(error.message, url).toMatch(new RegExp(`a ${kind} address: refused`));
      expect(error.retryable, url).toBe(false);
    }
  });

  it('checks every redirect hop like the first', async () => {
    const peer = await serve((path, res) => {
      if (path === '/key') res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' }).end();
      else res.end('{}');
    });
    const fetchJson = createGuardedFetchJson({ policy: { allowHttp: 'non-public', allowAddresses: ['loopback'] } });
    const error = await failure(fetchJson(`${peer.url}/key`, { accept: ACCEPT, signal: signal() }));
    expect(error.message).toMatch(/169\.254\.169\.254 resolves to 169\.254\.169\.254, a link-local address: refused/);
    expect(peer.hits()).toBe(1);
  });

  it('limits fetches per host, and stops trying a host that failed for a while', async () => {
    const peer = await serve((_p, res) => res.end('{"id":"k"}'));
    let now = 1_000_000;
    const fetchJson = createGuardedFetchJson({
      policy: { allowHttp: 'non-public', allowAddresses: ['loopback'] },
      hostBudget: { fetches: 3, windowMs: 10_000 },
      hostFailureTtlMs: 30_000,
      now: () => now,
    });
    for (let i = 0; i < 3; i++)
      expect(await fetchJson(`${peer.url}/k${i}`, { accept: ACCEPT, signal: signal() })).toEqual({ id: 'k' });
    const limited = await failure(fetchJson(`${peer.url}/k4`, { accept: ACCEPT, signal: signal() }));
    expect(limited.message).toMatch(/too many key fetches from 127\.0\.0\.1:\d+: at most 3 per 10000 ms/);
    expect(limited.retryable).toBe(true);
    expect(peer.hits()).toBe(3);
    now += 10_001;
    expect(await fetchJson(`${peer.url}/k5`, { accept: ACCEPT, signal: signal() })).toEqual({ id: 'k' });

    // A host that refuses connections is not dialled again until the failure expires.
    const dead = await serve(() => undefined);
    const deadUrl = dead.url;
    await new Promise((r) => servers.pop()!.close(r));
    const first = await failure(fetchJson(`${deadUrl}/key`, { accept: ACCEPT, signal: signal() }));
    expect(first.message).toMatch(/ECONNREFUSED/);
    const second = await failure(fetchJson(`${deadUrl}/key`, { accept: ACCEPT, signal: signal() }));
    expect(second.message).toMatch(/failed recently \(.*ECONNREFUSED.*\); not fetched again before/);
  });

  it('limits the response size and the time taken', async () => {
    const peer = await serve((path, res) => {
      if (path === '/big') res.end(JSON.stringify({ pad: 'x'.repeat(10_000) }));
      else if (path === '/chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"pad":"${'y'.repeat(6_000)}`);
        res.end(`${'y'.repeat(6_000)}"}`);
      } else res.write('{'); // and never ends
    });
    const fetchJson = createGuardedFetchJson({
      policy: { allowHttp: 'non-public', allowAddresses: ['loopback'] },
      maxBytes: 4_096,
      timeoutMs: 300,
    });
    expect((await failure(fetchJson(`${peer.url}/big`, { accept: ACCEPT, signal: signal() }))).message).toMatch(
      /document larger than 4096 bytes/,
    );
    expect((await failure(fetchJson(`${peer.url}/chunked`, { accept: ACCEPT, signal: signal() }))).message).toMatch(
      /document larger than 4096 bytes/,
    );
    const started = Date.now();
    const hung = await failure(fetchJson(`${peer.url}/hang`, { accept: ACCEPT, signal: signal() }));
    expect(hung.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('peerFetchPolicy', () => {
  it('opens everything in dev mode, loopback for a loopback service, nothing else otherwise', () => {
    expect(peerFetchPolicy({ devMode: true })).toEqual({
      allowHttp: 'always',
      allowAddresses: ['loopback', 'private', 'link-local', 'reserved'],
    });
    const local = { allowHttp: 'non-public', allowAddresses: ['loopback'] };
    expect(peerFetchPolicy({ devMode: false, ownEndpoint: 'http://127.0.0.1:8080' })).toEqual(local);
    expect(peerFetchPolicy({ devMode: false, ownEndpoint: 'https://localhost' })).toEqual(local);
    expect(peerFetchPolicy({ devMode: false, ownEndpoint: 'http://[::1]:80/base' })).toEqual(local);
    expect(peerFetchPolicy({ devMode: false, ownEndpoint: 'https://vct.example.com' })).toEqual({});
    expect(peerFetchPolicy({ devMode: false, ownEndpoint: 'http://10.0.0.3:5678' })).toEqual({});
    // Without an external URL, the listener decides; a wildcard one is not loopback.
    expect(peerFetchPolicy({ devMode: false, listenHost: '127.0.0.1' })).toEqual(local);
    expect(peerFetchPolicy({ devMode: false, listenHost: '::1' })).toEqual(local);
    expect(peerFetchPolicy({ devMode: false, listenHost: '0.0.0.0' })).toEqual({});
    expect(peerFetchPolicy({ devMode: false, listenHost: '::' })).toEqual({});
    expect(
      peerFetchPolicy({ devMode: false, ownEndpoint: 'https://log.example.com', listenHost: '127.0.0.1' }),
    ).toEqual({});
    expect(peerFetchPolicy({ devMode: false })).toEqual({});
  });
});

describe('the guarded fetch answering status and text', () => {
  it('hands back non-2xx statuses, follows checked redirects unless asked not to, and names its purpose', async () => {
    const peer = await serve((path, res) => {
      if (path === '/moved') res.writeHead(302, { location: '/here' }).end();
      else if (path === '/here') res.end('{"ok":true}');
      else res.writeHead(404).end('nothing');
    });
    const fetch = createGuardedFetch({
      policy: { allowHttp: 'non-public', allowAddresses: ['loopback'] },
      purpose: 'did:web documents',
    });
    const get = (path: string, redirects?: 'follow' | 'manual') =>
      fetch(`${peer.url}${path}`, { accept: ACCEPT, signal: signal(), ...(redirects ? { redirects } : {}) });
    expect(await get('/moved')).toEqual({ status: 200, url: `${peer.url}/here`, text: '{"ok":true}' });
    expect(await get('/moved', 'manual')).toEqual({ status: 302, url: `${peer.url}/moved`, text: '' });
    expect(await get('/gone')).toEqual({ status: 404, url: `${peer.url}/gone`, text: '' });
    const error = await failure(fetch('http://8.8.8.8/x', { accept: ACCEPT, signal: signal() }));
    expect(error.message).toMatch(/refused for did:web documents \(https only\)/);
    expect(error.status).toBe(400);
  });
});
