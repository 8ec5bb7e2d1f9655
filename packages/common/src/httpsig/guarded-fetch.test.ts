import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  addressRefusal,
  checkPeerUrl,
  classifyAddress,
  createGuardedFetch,
  createGuardedFetchJson,
  peerFetchPolicy,
  type GuardedFetchOptions,
} from './guarded-fetch.js';
import { parsePeerNetwork } from './peer-networks.js';

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

describe('allowed peer networks (--allowed-peer-networks)', () => {
  const cluster = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fd00::/8'];

  /** A resolver naming each host's address as a cluster DNS would. */
  const lookupOf = (table: Record<string, string>): NonNullable<GuardedFetchOptions['lookup']> =>
    ((host: string, _options: unknown, callback: (e: Error | null, a: unknown) => void) => {
      const address = table[host];
      if (address === undefined)
        callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
      else callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
    }) as unknown as NonNullable<GuardedFetchOptions['lookup']>;

  it('allows the listed networks only: other private, link-local (the metadata address) and loopback stay refused', () => {
    const policy = peerFetchPolicy({
      devMode: false,
      ownEndpoint: 'https://node.example.com',
      allowedPeerNetworks: ['10.0.0.0/8', 'fd00::/8'],
    });
    expect(policy).toEqual({ allowNetworks: ['10.0.0.0/8', 'fd00::/8'] });
    expect(addressRefusal(policy, '10.1.2.3')).toBeUndefined();
    expect(addressRefusal(policy, '::ffff:10.1.2.3')).toBeUndefined();
    expect(addressRefusal(policy, 'fd12:3456::1')).toBeUndefined();
    expect(addressRefusal(policy, '8.8.8.8')).toBeUndefined();
    expect(addressRefusal(policy, '192.168.1.5')).toBe('a private address');
    expect(addressRefusal(policy, 'fc00::1')).toBe('a private address');
    expect(addressRefusal(policy, '169.254.169.254')).toBe('a link-local address');
    expect(addressRefusal(policy, '127.0.0.1')).toBe('a loopback address');
    // Listed explicitly, even the link-local range is allowed: the operator said so.
    expect(addressRefusal({ allowNetworks: ['169.254.0.0/16'] }, '169.254.169.254')).toBeUndefined();
    // Without the option nothing changes, and dev mode still opens everything.
    expect(
      peerFetchPolicy({ devMode: false, ownEndpoint: 'https://node.example.com', allowedPeerNetworks: [] }),
    ).toEqual({});
    expect(
      peerFetchPolicy({ devMode: false, ownEndpoint: 'http://127.0.0.1:8080', allowedPeerNetworks: cluster }),
    ).toEqual({
      allowHttp: 'non-public',
      allowAddresses: ['loopback'],
      allowNetworks: cluster,
    });
  });

  it('reads CIDRs and single addresses, and says why anything else is none', () => {
    expect(parsePeerNetwork('10.0.0.0/8')).toEqual({ network: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parsePeerNetwork(' fd00::/8 ')).toEqual({ network: 'fd00::', prefix: 8, family: 'ipv6' });
    expect(parsePeerNetwork('10.1.2.3')).toEqual({ network: '10.1.2.3', prefix: 32, family: 'ipv4' });
    expect(() => parsePeerNetwork('10.0.0.0/33')).toThrow('prefix length must be 1 to 32');
    expect(() => parsePeerNetwork('0.0.0.0/0')).toThrow('prefix length must be 1 to 32');
    expect(() => parsePeerNetwork('10.0.0.0/8x')).toThrow('prefix length');
    expect(() => parsePeerNetwork('cluster.local')).toThrow(/must be a CIDR/);
    expect(() => parsePeerNetwork('10.0.0.0/8/8')).toThrow(/must be a CIDR/);
  });

  it('fetches from a listed network over http, the address checked at connect time', async () => {
    const peer = await serve((_p, res) => res.end('{"id":"k"}'));
    const port = new URL(peer.url).port;
    // Loopback stands in for the cluster network here: not an allowed class, only a listed network.
    const fetchJson = createGuardedFetchJson({
      policy: peerFetchPolicy({
        devMode: false,
        ownEndpoint: 'https://node.example.com',
        allowedPeerNetworks: ['127.0.0.0/8'],
      }),
      lookup: lookupOf({ 'peer.cluster.internal': '127.0.0.1', 'other.cluster.internal': '192.168.7.7' }),
    });
    expect(await fetchJson(`http://peer.cluster.internal:${port}/key`, { accept: ACCEPT, signal: signal() })).toEqual({
      id: 'k',
    });
    expect(peer.hits()).toBe(1);
    // An unlisted private address is refused before any connection, http or https.
    for (const scheme of ['http', 'https']) {
      const refused = await failure(
        fetchJson(`${scheme}://other.cluster.internal:${port}/key`, { accept: ACCEPT, signal: signal() }),
      );
      expect(refused.status).toBe(400);
      expect(refused.message).toContain('other.cluster.internal resolves to 192.168.7.7, a private address: refused');
    }
    // Plain http elsewhere stays refused: public hosts need https.
    const publicHttp = await failure(fetchJson('http://8.8.8.8/key', { accept: ACCEPT, signal: signal() }));
    expect(publicHttp.message).toMatch(/plain http to 8\.8\.8\.8 \(8\.8\.8\.8, a public address\) is refused/);
    expect(peer.hits()).toBe(1);
  });

  it('lets a listed private address through to the connection, and refuses the metadata address by name or literally', async () => {
    const lookup = lookupOf({ 'peer.cluster.internal': '10.255.255.1', 'metadata.internal': '169.254.169.254' });
    const policy = peerFetchPolicy({
      devMode: false,
      ownEndpoint: 'https://node.example.com',
      allowedPeerNetworks: cluster,
    });
    const fetchJson = createGuardedFetchJson({ policy, lookup, timeoutMs: 300 });
    // Nothing listens there: the guard let it through, so the failure is the network's (retryable), not a 400.
    const unreachable = await failure(
      fetchJson('https://peer.cluster.internal/key', { accept: ACCEPT, signal: signal() }),
    );
    expect(unreachable.status).not.toBe(400);
    expect(unreachable.retryable).toBe(true);
    for (const url of ['https://metadata.internal/latest/meta-data', 'http://169.254.169.254/latest/meta-data']) {
      const refused = await failure(fetchJson(url, { accept: ACCEPT, signal: signal() }));
      expect(refused.status).toBe(400);
      expect(refused.message).toMatch(/169\.254\.169\.254, a link-local address: refused/);
    }
    await expect(checkPeerUrl('https://peer.cluster.internal/key', { policy, lookup })).resolves.toBeUndefined();
    await expect(checkPeerUrl('https://metadata.internal/', { policy, lookup })).rejects.toThrow(
      /a link-local address: refused/,
    );
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
