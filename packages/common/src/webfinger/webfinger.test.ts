import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  JRD_PROPERTIES,
  buildJrd,
  createWebFingerClient,
  findJrdLink,
  ledgerTypeOf,
  parseJrd,
  publicKeyOf,
  transparencyLogJrd,
  webFingerUrl,
} from './index.js';

describe('JRD builders', () => {
  it('serialises a log JRD exactly as trustbloc/vct (sorted properties, self link)', () => {
    const jrd = transparencyLogJrd('https://vct.example.com/maple2021', Buffer.from('public key'));
    expect(JSON.stringify(jrd)).toBe(
      '{"subject":"https://vct.example.com/maple2021","properties":{"https://trustbloc.dev/ns/ledger-type":"vct-v1","https://trustbloc.dev/ns/public-key":"cHVibGljIGtleQ=="},"links":[{"rel":"self","href":"https://vct.example.com/maple2021"}]}',
    );
  });

  it('leaves out empty members and sorts property names', () => {
    const jrd = buildJrd({ subject: '', properties: { b: 1, a: 2 }, links: [{ rel: 'self', type: '', href: 'x' }] });
    expect(JSON.stringify(jrd)).toBe('{"properties":{"a":2,"b":1},"links":[{"rel":"self","href":"x"}]}');
    expect(buildJrd({})).toEqual({});
  });

  it('reads the ledger type, the public key and links back', () => {
    const jrd = transparencyLogJrd('https://log/main', Buffer.from([1, 2, 3]));
    expect(ledgerTypeOf(jrd)).toBe('vct-v1');
    expect(publicKeyOf(jrd)).toEqual(Buffer.from([1, 2, 3]));
    expect(findJrdLink(jrd, 'self')?.href).toBe('https://log/main');
    expect(findJrdLink(jrd, 'self', 'application/jrd+json')).toBeUndefined();
    expect(publicKeyOf({})).toBeUndefined();
    expect(ledgerTypeOf({ properties: { [JRD_PROPERTIES.ledgerType]: 7 } })).toBeUndefined();
  });

  it('rejects a public key that is not strict base64', () => {
    for (const bad of ['AQ', 'AQI', 'A Q==', 'AQ-_', 42, '']) {
      expect(() => publicKeyOf({ properties: { [JRD_PROPERTIES.publicKey]: bad } }), String(bad)).toThrow(
        /standard padded base64/,
      );
    }
  });

  it('checks the shape of received documents', () => {
    expect(() => parseJrd([])).toThrow(/JSON object/);
    expect(() => parseJrd({ subject: 1 })).toThrow(/subject/);
    expect(() => parseJrd({ properties: [] })).toThrow(/properties/);
    expect(() => parseJrd({ links: {} })).toThrow(/links must be an array/);
    expect(() => parseJrd({ links: [{ href: 'x' }] })).toThrow(/link 0/);
    expect(parseJrd({ subject: 's', links: [{ rel: 'self' }] }).subject).toBe('s');
  });

  it('builds the query URL from the origin of the base URL', () => {
    expect(webFingerUrl('https://vct.example.com/ignored/path', 'https://vct.example.com/maple 2021')).toBe(
      'https://vct.example.com/.well-known/webfinger?resource=https%3A%2F%2Fvct.example.com%2Fmaple%202021',
    );
    expect(() => webFingerUrl('not a url', 'x')).toThrow(/invalid base URL/);
  });
});

describe('WebFinger client', () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      seen.push(url.searchParams.get('resource') ?? '');
      const resource = url.searchParams.get('resource');
      if (url.pathname !== '/.well-known/webfinger' || resource === null) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"resource is required"}');
      } else if (resource.endsWith('/main')) {
        setTimeout(
          () =>
            res
              .writeHead(200, { 'content-type': 'application/jrd+json' })
              .end(JSON.stringify(transparencyLogJrd(resource, Buffer.from('key')))),
          20,
        );
      } else if (resource.endsWith('/garbage')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"links":"nope"}');
      } else {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: `resource not found "${resource}"` }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('fetches once for concurrent and repeated lookups, then serves from the cache', async () => {
    const client = createWebFingerClient();
    seen.length = 0;
    const [a, b] = await Promise.all([client.lookup(base, `${base}/main`), client.lookup(base, `${base}/main`)]);
    const c = await client.lookup(`${base}/other/path`, `${base}/main`);
    expect(a).toEqual(b);
    expect(c).toEqual(a);
    expect(seen).toEqual([`${base}/main`]);
    expect(ledgerTypeOf(a)).toBe('vct-v1');
    expect(publicKeyOf(a)?.toString()).toBe('key');
    client.forget(base, `${base}/main`);
    await client.lookup(base, `${base}/main`);
    expect(seen).toHaveLength(2);
  });

  it('expires answers after the cache TTL', async () => {
    const client = createWebFingerClient({ cacheTtlMs: 1 });
    seen.length = 0;
    await client.lookup(base, `${base}/main`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await client.lookup(base, `${base}/main`);
    expect(seen).toHaveLength(2);
  });

  it('reports a peer 404 as not_found and does not cache failures', async () => {
    const client = createWebFingerClient();
    seen.length = 0;
    for (let i = 0; i < 2; i++) {
      const error = await client.lookup(base, `${base}/unknown`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('not_found');
      expect((error as AppError).message).toContain('resource not found');
    }
    expect(seen).toHaveLength(2);
  });

  it('rejects a malformed JRD from the peer', async () => {
    const error = await createWebFingerClient()
      .lookup(base, `${base}/garbage`)
      .catch((e: unknown) => e);
    expect((error as AppError).code).toBe('bad_request');
    expect((error as AppError).message).toMatch(/links must be an array/);
  });

  it('fails as retryable when nothing answers', async () => {
    const error = await createWebFingerClient()
      .lookup('http://127.0.0.1:1', 'http://127.0.0.1:1/main')
      .catch((e: unknown) => e);
    expect((error as AppError).retryable).toBe(true);
  });
});
