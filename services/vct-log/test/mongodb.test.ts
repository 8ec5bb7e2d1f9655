import { randomBytes } from 'node:crypto';
import { createMongoStoreProvider, type StoreProvider } from '@anchor/common/storage';
import type { AddVcResponse, SignedTreeHead } from '@anchor/common/vct';
import { mongoServerForTests, type MongoTestServer } from '@anchor/testing/ferretdb';
import { makeTempDir, waitFor, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryFor } from '../src/merkle-log/entries.test-helpers.js';
import { TransparencyLog } from '../src/merkle-log/transparency-log.js';
import { createServer, type VctLogServer } from '../src/server.js';
import { anchorCredential, call } from '../src/testing/index.js';

// Against MONGODB_URL when it names a server (a replica set runs the batches in transactions), else against
// FerretDB (test/ferretdb), where batches are ordered bulk writes.
describe('vct-log on MongoDB', () => {
  const prefix = `vct_test_${randomBytes(4).toString('hex')}`;
  let server: MongoTestServer;
  let url: string;
  let provider: StoreProvider;

  beforeAll(async () => {
    server = await mongoServerForTests();
    url = server.url;
    console.info(`[vct-log on MongoDB] running against ${server.label}`);
    provider = await createMongoStoreProvider({ url, prefix, sweepIntervalMs: 0 });
  }, 20 * 60_000);
  afterAll(async () => {
    await provider?.close();
    await server?.stop();
  });

  it('accepts, deduplicates, integrates and reopens a log', async () => {
    const log = await TransparencyLog.open(provider, 'main');
    for (let i = 0; i < 30; i++) await log.accept(entryFor(`m${i}`, 1_000 + i));
    expect((await log.accept(entryFor('m3', 9_999))).timestamp).toBe(1_003);
    await log.integrate(20, 3_600_000);
    await log.integrate(20, 3_600_000);
    expect(log.head().size).toBe(30);
    const reopened = await TransparencyLog.open(provider, 'main');
    expect(reopened.head()).toEqual(log.head());
    expect(reopened.inclusionProof(7, 30)).toEqual(log.inclusionProof(7, 30));
  });

  describe('two replicas sharing the database', () => {
    let dirs: TempDir[] = [];
    let replicas: VctLogServer[] = [];

    beforeAll(async () => {
      dirs = [await makeTempDir('vct-mongo-a-'), await makeTempDir('vct-mongo-b-')];
      // The key file of the first replica is shared, as a deployment shares it through a secret.
      const keyFile = `${dirs[0]!.path}/key.pem`;
      replicas = dirs.map((dir) =>
        createServer({
          dataDir: dir.path,
          keyFile,
          storage: { type: 'mongodb', url, prefix: `${prefix}_r` },
          canonicalizeWorkers: 0,
          integrationIntervalMs: 50,
        }),
      );
      for (const replica of replicas) await replica.start();
    });
    afterAll(async () => {
      for (const replica of replicas) await replica.stop();
      for (const dir of dirs) await dir.remove();
    });

    it('integrate what either accepted once, and serve the same heads', async () => {
      const acks: AddVcResponse[] = [];
      for (let i = 0; i < 20; i++) {
        const reply = await call<AddVcResponse>(`${replicas[i % 2]!.url}/main/v1/add-vc`, {
          json: anchorCredential(`mongo-${i % 15}`),
        });
        expect(reply.status).toBe(200);
        acks.push(reply.body);
      }
      const heads = await waitFor(
        async () => {
          const both = await Promise.all(
            replicas.map(async (r) => (await call<SignedTreeHead>(`${r.url}/main/v1/get-sth`)).body),
          );
          return both.every((h) => h.tree_size === 15 && h.sha256_root_hash === both[0]!.sha256_root_hash)
            ? both
            : undefined;
        },
        { timeoutMs: 20_000 },
      );
      expect(heads[0]!.tree_size).toBe(15);
      expect(acks[15]!.timestamp).toBe(acks[0]!.timestamp);
    });
  });
});
