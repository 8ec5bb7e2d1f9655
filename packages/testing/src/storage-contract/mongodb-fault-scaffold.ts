import { type EventEmitter } from 'node:events';
import { afterAll, beforeAll } from 'vitest';
import { createMongoStoreProvider, type MongoStoreOptions, type MongoStoreProvider } from '@anchor/common/storage';
import { uniqueName } from '../contract-kit/index.js';
import { mongoServerForTests, type MongoTestServer } from '../ferretdb/index.js';

/**
 * What the MongoDB fault tests share: one server for the file (started before its tests, stopped after),
 * and providers on it, each under a store prefix of its own, with no expiry sweep, closed after the file.
 */
export function mongoFaultScaffold(): {
  server(): MongoTestServer;
  /** A provider on the server (or on `url`, e.g. through a proxy), under a prefix named after `name`. */
  open(name: string, options?: Partial<MongoStoreOptions>): Promise<MongoStoreProvider>;
} {
  let server: MongoTestServer | undefined;
  const providers: MongoStoreProvider[] = [];
  beforeAll(async () => {
    server = await mongoServerForTests();
  }, 20 * 60_000);
  afterAll(async () => {
    await Promise.all(providers.map((p) => p.close()));
    await server?.stop();
  });
  const started = (): MongoTestServer => {
    if (server === undefined) throw new Error('the MongoDB test server is not started (used outside a test)');
    return server;
  };
  return {
    server: started,
    open: async (name, options = {}) => {
      const provider = (await createMongoStoreProvider({
        url: started().url,
        prefix: uniqueName(name).replaceAll('-', ''),
        sweepIntervalMs: 0,
        ...options,
      })) as MongoStoreProvider;
      providers.push(provider);
      return provider;
    },
  };
}

/** The driver's client inside the provider: the events its server monitors emit come from there. */
export function clientOf(provider: MongoStoreProvider): EventEmitter {
  return (provider as unknown as { client: EventEmitter }).client;
}
