import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { builtServiceMain, loopbackService, waitFor } from '@anchor/testing/process';
import { processTestScope } from '@anchor/testing/process-scope';
import { describe, expect, it } from 'vitest';
import { b64, call, unb64 } from './kms.test-helpers.js';

const main = builtServiceMain('kms');
const KEY_TYPES = ['ED25519', 'ECDSAP256IEEEP1363', 'AES256GCM', 'HMACSHA256Tag256'] as const;

/**
 * SIGKILL while clients create keys of several types (and rotate some): after a restart on the same data
 * directory and master key, every key acknowledged with 201 (and every acknowledged rotation) is there and works.
 */
describe('kms killed while creating keys', () => {
  const { tempDir } = processTestScope();

  it('loses no acknowledged key or key version', async () => {
    const dir = await tempDir('kms-crash-');
    const keyFile = join(dir.path, 'master.key');
    await writeFile(keyFile, randomBytes(32));
    const { url, start } = await loopbackService(main, [
      '--data-dir',
      join(dir.path, 'data'),
      '--secret-lock-key-path',
      keyFile,
      '--log-level',
      'warning',
    ]);
    let service = await start();
    const ks = (
      await call<{ location: string; capability: string }>(`${url}/v1/keystores`, {
        json: { controller: 'did:example:crash' },
      })
    ).body;

    const acknowledged: Array<{ keyType: string; location: string; keyVersion: number }> = [];
    let killed = false;
    let n = 0;
    const creator = async (): Promise<void> => {
      while (!killed) {
        const keyType = KEY_TYPES[n++ % KEY_TYPES.length] as string;
        try {
          const reply = await call<{ location: string; keyVersion: number }>(`${ks.location}/keys`, {
            json: { keyType },
            token: ks.capability,
          });
          if (reply.status !== 201) throw new Error(`create answered ${reply.status}`);
          const entry = { keyType, location: reply.body.location, keyVersion: 1 };
          acknowledged.push(entry);
          if (n % 7 === 0) {
            const rotated = await call<{ keyVersion: number }>(`${entry.location}/rotate`, {
              method: 'POST',
              token: ks.capability,
            });
            if (rotated.status !== 200) throw new Error(`rotate answered ${rotated.status}`);
            entry.keyVersion = rotated.body.keyVersion;
          }
        } catch (error) {
          if (!killed) throw error;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, creator));
    await waitFor(() => acknowledged.length >= 300, { timeoutMs: 60_000, intervalMs: 10 });
    killed = true;
    await service.kill();
    await load;

    service = await start();
    const rotated = acknowledged.filter((entry) => entry.keyVersion > 1).length;
    expect(rotated).toBeGreaterThan(10);
    for (const entry of acknowledged) {
      if (entry.keyType === 'ED25519' || entry.keyType === 'ECDSAP256IEEEP1363') {
        const signed = await call<{ signature: string; keyVersion: number }>(`${entry.location}/sign`, {
          json: { message: b64('after') },
          token: ks.capability,
        });
        expect(signed.status, entry.location).toBe(200);
        expect(signed.body.keyVersion).toBeGreaterThanOrEqual(entry.keyVersion);
        const verified = await call(`${entry.location}/verify`, {
          json: { message: b64('after'), signature: signed.body.signature },
          token: ks.capability,
        });
        expect(verified.body).toEqual({ verified: true });
      } else if (entry.keyType === 'AES256GCM') {
        const sealed = await call<{ cipherText: string; nonce: string }>(`${entry.location}/encrypt`, {
          json: { message: b64('after') },
          token: ks.capability,
        });
        expect(sealed.status, entry.location).toBe(200);
        const opened = await call<{ plainText: string }>(`${entry.location}/decrypt`, {
          json: sealed.body,
          token: ks.capability,
        });
        expect(unb64(opened.body.plainText).toString()).toBe('after');
      } else {
        const mac = await call<{ mac: string }>(`${entry.location}/computemac`, {
          json: { data: b64('after') },
          token: ks.capability,
        });
        expect(mac.status, entry.location).toBe(200);
      }
    }
    console.log(`kms crash: ${acknowledged.length} keys acknowledged (${rotated} rotated) before SIGKILL; lost: 0`);
    expect((await service.stop()).code).toBe(0);
  }, 120_000);
});
