import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, conflict } from '@anchor/common/errors';
import { createHttpClient } from '@anchor/common/http-client';
import { createMetrics } from '@anchor/common/metrics';
import { createMemStoreProvider, type Store, type StoreProvider } from '@anchor/common/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeMetrics } from '../observability/node-metrics.js';
import { CAS_MEDIA, CasStore } from './cas-store.js';
import { ContentResolver } from './content-resolver.js';

const metrics = createNodeMetrics(createMetrics({ prefix: 'node_', processMetrics: false }));
const content = Buffer.from('{"batch":"file"}');
const hash = CasStore.hashOf(content);
const forged = Buffer.from('{"batch":"other"}');

let server: Server;
let peer: string;
const served: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    served.push(request.url ?? '');
    response.end(request.url === `/forged/cas/${hash}` ? forged : content);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The mem provider, with the CAS store's writes refused as `refusal` says. */
function refusingCasWrites(refusal: () => Error): StoreProvider {
  const provider = createMemStoreProvider();
  const refusing: StoreProvider = Object.create(provider) as StoreProvider;
  refusing.open = async <T extends object>(name: string, options?: Parameters<StoreProvider['open']>[1]) => {
    const store = await provider.open<T>(name, options);
    if (name !== 'cas') return store;
    const refused: Store<T> = Object.create(store) as Store<T>;
    refused.put = () => Promise.reject(refusal());
    return refused;
  };
  return refusing;
}

async function resolverOver(provider: StoreProvider): Promise<{ resolver: ContentResolver; cas: CasStore }> {
  const cas = await CasStore.open(provider, 'http://127.0.0.1:1/cas');
  return { resolver: new ContentResolver(cas, createHttpClient(), metrics), cas };
}

describe('ContentResolver', () => {
  it('keeps fetched content that hashes right, and reads it locally from then on', async () => {
    const { resolver, cas } = await resolverOver(createMemStoreProvider());
    const before = served.length;
    expect(await resolver.resolve(hash, { sources: [peer], mediaType: CAS_MEDIA.batchFile })).toEqual(content);
    expect((await cas.read(hash))?.content).toEqual(content);
    expect(await resolver.resolve(hash, { sources: [peer] })).toEqual(content);
    expect(served.length - before).toBe(1);
  });

  it('refuses for good content that does not hash to what was asked for', async () => {
    const { resolver, cas } = await resolverOver(createMemStoreProvider());
    const error = await resolver.resolve(hash, { sources: [`${peer}/forged`] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).retryable).toBe(false);
    expect((error as AppError).message).toMatch(/does not hash to/);
    expect(await cas.read(hash)).toBeUndefined();
  });

  it('makes a failure to keep fetched content retryable, whatever the store answered', async () => {
    // A store refusal (here a conflict, as a lost upsert race on MongoDB once answered) is this node's
    // problem, not the content's: the anchor that needs the content must be tried again, not rejected.
    const { resolver } = await resolverOver(
      refusingCasWrites(() => conflict('store cas: put: the key already exists')),
    );
    const error = await resolver.resolve(hash, { sources: [peer] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).retryable).toBe(true);
    expect((error as AppError).message).toMatch(/was fetched but not kept: store cas: put: the key already exists/);
  });
});
