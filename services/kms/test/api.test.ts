import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type KmsServer } from '../src/server.js';
import { b64, call, Controller, unb64 } from './kms.test-helpers.js';

describe('kms API', () => {
  let dir: TempDir;
  let server: KmsServer;
  let base: string;
  const alice = new Controller();
  let ks: { id: string; capability: string; location: string };

  beforeAll(async () => {
    dir = await makeTempDir('kms-api-');
    server = createServer({ dataDir: dir.path, storage: { type: 'mem' }, devMode: true });
    await server.start();
    base = server.url;
    const created = await call<typeof ks>(`${base}/v1/keystores`, { json: { controller: alice.did } });
    expect(created.status).toBe(201);
    ks = created.body;
  });

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('creates a keystore with Location and a capability', async () => {
    expect(ks.location).toBe(`${base}/v1/keystores/${ks.id}`);
    const got = await call(`${ks.location}`, { token: ks.capability });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: ks.id, controller: alice.did });
  });

  it('signs and verifies with an ED25519 key', async () => {
    const created = await call<{ keyID: string; location: string; publicKey: string }>(`${ks.location}/keys`, {
      json: { keyType: 'ED25519', export: true },
      token: ks.capability,
    });
    expect(created.status).toBe(201);
    expect(unb64(created.body.publicKey)).toHaveLength(32);
    const signed = await call<{ signature: string; keyVersion: number }>(`${created.body.location}/sign`, {
      json: { message: b64('hello') },
      token: ks.capability,
    });
    expect(signed.status).toBe(200);
    expect(signed.body.keyVersion).toBe(1);
    const verified = await call(`${created.body.location}/verify`, { json: { message: b64('hello'), signature: signed.body.signature }, token: ks.capability });
    expect(verified.body).toEqual({ verified: true });
    const bySignature = await alice.call(`${created.body.location}/sign`, { message: b64('hello') });
    expect(bySignature.status).toBe(200);
  });
});
