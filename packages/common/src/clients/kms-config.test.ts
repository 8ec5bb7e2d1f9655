import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { defineConfig, loadConfig } from '../config/index.js';
import { KeyPair } from '../crypto/index.js';
import { base64UrlPaddedDecode, base64UrlPaddedEncode } from '../encoding/index.js';
import { KmsClient, kmsOptions, kmsOptionsProblem, kmsSettingsOf, openKmsSigner } from './index.js';

describe('the kms flags', () => {
  const spec = defineConfig({
    program: 'signing-service',
    envPrefix: 'SVC',
    options: kmsOptions('its signatures', { url: ['SVC_KMS_ENDPOINT'] }),
    checks: [kmsOptionsProblem],
  });
  const load = (argv: string[], env: Record<string, string> = {}) => loadConfig(spec, { argv, env });

  it('are all absent (local keys), or a kms URL with a keystore and its capability', () => {
    expect(kmsSettingsOf(load([]))).toBeUndefined();
    expect(
      kmsSettingsOf(load(['--kms-url', 'http://kms:8075/', '--kms-keystore', 'ks1', '--kms-capability', 'cap'])),
    ).toEqual({ url: 'http://kms:8075', keystore: 'ks1', capability: 'cap' });
    // The Go services' spelling: a keystore URL, from its env name.
    expect(
      kmsSettingsOf(
        load(['--kms-key-id', 'k1'], { SVC_KMS_ENDPOINT: 'https://kms/v1/keystores/ks%2F2', SVC_KMS_CAPABILITY: 'c' }),
      ),
    ).toEqual({ url: 'https://kms', keystore: 'ks/2', capability: 'c', keyId: 'k1' });
  });

  it('refuses combinations that cannot work, naming the flags', () => {
    expect(() => load(['--kms-keystore', 'ks1'])).toThrow(/--kms-keystore needs --kms-url/);
    expect(() => load(['--kms-url', 'http://kms'])).toThrow(/--kms-url needs --kms-keystore/);
    expect(() => load(['--kms-url', 'http://kms', '--kms-keystore', 'ks1'])).toThrow(/needs --kms-capability/);
    expect(() =>
      load(['--kms-url', 'http://kms/v1/keystores/a', '--kms-keystore', 'b', '--kms-capability', 'c']),
    ).toThrow(/--kms-keystore b differs from the keystore in --kms-url/);
  });
});

describe('openKmsSigner', () => {
  /** A kms with one keystore that creates Ed25519 keys, exports and signs with them. */
  async function scriptedKms() {
    const keys = new Map<string, KeyPair>();
    let created = 0;
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const path = req.url ?? '';
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'POST' && path.endsWith('/keys')) {
        const keyID = `key-${++created}`;
        keys.set(keyID, KeyPair.generate('Ed25519'));
        return reply(201, { keyID, location: `/v1/keystores/ks1/keys/${keyID}`, keyVersion: 1 });
      }
      const key = keys.get(decodeURIComponent(path.split('/')[5] ?? ''));
      if (!key) return reply(404, { message: 'no such key' });
      if (req.method === 'GET')
        return reply(200, {
          publicKey: base64UrlPaddedEncode(key.publicKeyBytes()),
          keyType: 'ED25519',
          keyVersion: 1,
        });
      const { message } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: string };
      return reply(200, { signature: base64UrlPaddedEncode(key.sign(base64UrlPaddedDecode(message))), keyVersion: 1 });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new KmsClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    return {
      keystore: client.keystore('ks1', { capability: 'cap' }),
      created: () => created,
      close: async () => {
        client.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('creates a key once and reuses the remembered one; replicas racing keep the first writer', async () => {
    const kms = await scriptedKms();
    try {
      let stored: string | undefined;
      const database = {
        remembered: async () => stored,
        remember: async (keyId: string) => (stored ??= keyId),
      };
      const first = await openKmsSigner(kms.keystore, { keyType: 'Ed25519', ...database });
      expect([first.keyId, kms.created()]).toEqual(['key-1', 1]);
      const again = await openKmsSigner(kms.keystore, { keyType: 'Ed25519', ...database });
      expect([again.keyId, kms.created()]).toEqual(['key-1', 1]);

      // Another replica that found nothing remembered creates key-2, but keeps the first writer's key-1.
      const racing = await openKmsSigner(kms.keystore, {
        keyType: 'Ed25519',
        remembered: async () => undefined,
        remember: database.remember,
      });
      expect([racing.keyId, kms.created()]).toEqual(['key-1', 2]);

      const data = Buffer.from('x');
      expect(first.publicKey.verify(data, Buffer.from(await racing.sign(data)))).toBe(true);
      await expect(openKmsSigner(kms.keystore, { keyId: 'key-1', keyType: 'P-256', ...database })).rejects.toThrow(
        /is Ed25519; this key must be P-256/,
      );
    } finally {
      await kms.close();
    }
  });
});
