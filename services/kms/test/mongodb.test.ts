import { randomBytes } from 'node:crypto';
import { mongoServerForTests, type MongoTestServer } from '@anchor/testing/ferretdb';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type KmsServer } from '../src/server.js';
import { b64, call } from './kms.test-helpers.js';

// Against MONGODB_URL when it names a server, else against FerretDB (test/ferretdb).
describe('kms replicas sharing a MongoDB database', () => {
  const prefix = `kms_test_${randomBytes(4).toString('hex')}`;
  const masterKey = randomBytes(32).toString('base64');
  let server: MongoTestServer;
  let dirs: TempDir[] = [];
  let replicas: KmsServer[] = [];

  beforeAll(async () => {
    server = await mongoServerForTests();
    console.info(`[kms on MongoDB] running against ${server.label}`);
    dirs = [await makeTempDir('kms-mongo-a-'), await makeTempDir('kms-mongo-b-')];
    replicas = dirs.map((dir) =>
      createServer({
        dataDir: dir.path,
        storage: { type: 'mongodb', url: server.url, prefix },
        masterKey: { base64: masterKey },
        bbsWorkers: 0,
        signWorkers: 0,
      }),
    );
    for (const replica of replicas) await replica.start();
  }, 20 * 60_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    for (const dir of dirs) await dir.remove();
    await server?.stop();
  });

  it('creates keys of several types in parallel through both, and each replica uses the keys the other created', async () => {
    const [a, b] = replicas as [KmsServer, KmsServer];
    const ks = (
      await call<{ id: string; capability: string }>(`${a.url}/v1/keystores`, {
        json: { controller: 'did:example:replicas' },
      })
    ).body;
    const types = [
      'AES128GCM',
      'ChaCha20Poly1305',
      'XChaCha20Poly1305',
      'ED25519',
      'HMACSHA256Tag256',
      'NISTP256ECDHKW',
      'X25519ECDHKW',
      'BLS12381G2',
    ];
    const created = await Promise.all(
      types.map((keyType, i) =>
        call<{ keyID: string }>(`${(i % 2 ? b : a).url}/v1/keystores/${ks.id}/keys`, {
          json: { keyType },
          token: ks.capability,
        }),
      ),
    );
    for (const reply of created) expect(reply.status).toBe(201);
    const ed = created[types.indexOf('ED25519')]?.body.keyID as string;
    const signed = await call<{ signature: string }>(`${b.url}/v1/keystores/${ks.id}/keys/${ed}/sign`, {
      json: { message: b64('m') },
      token: ks.capability,
    });
    expect(signed.status).toBe(200);
    const verified = await call(`${a.url}/v1/keystores/${ks.id}/keys/${ed}/verify`, {
      json: { message: b64('m'), signature: signed.body.signature },
      token: ks.capability,
    });
    expect(verified.body).toEqual({ verified: true });
  });

  it('refuses a replica started with another master key', async () => {
    const dir = await makeTempDir('kms-mongo-c-');
    dirs.push(dir);
    const wrong = createServer({
      dataDir: dir.path,
      storage: { type: 'mongodb', url: server.url, prefix },
      masterKey: { base64: randomBytes(32).toString('base64') },
      bbsWorkers: 0,
      signWorkers: 0,
    });
    await expect(wrong.start()).rejects.toThrow(/the master key is not the one/);
  });
});
