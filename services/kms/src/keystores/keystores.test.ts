import { randomBytes } from 'node:crypto';
import { createStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterEach, describe, expect, it } from 'vitest';
import { exportPublicKey, generateKey } from '../crypto/index.js';
import { Keystores } from './keystores.js';
import { STORES } from './keystore-records.js';

const version = (keyId: string) => {
  const material = generateKey('ED25519');
  return { material, publicKey: exportPublicKey(material, keyId) };
};

describe('Keystores', () => {
  const opened: Array<{ provider: StoreProvider; dir?: TempDir }> = [];
  afterEach(async () => {
    for (const { provider, dir } of opened.splice(0)) {
      await provider.close();
      await dir?.remove();
    }
  });
  const provider = async (type: 'mem' | 'lmdb'): Promise<StoreProvider> => {
    const dir = type === 'lmdb' ? await makeTempDir('kms-keystores-') : undefined;
    const created = await createStoreProvider({ type, ...(dir ? { dataDir: dir.path } : {}) });
    opened.push({ provider: created, ...(dir ? { dir } : {}) });
    return created;
  };

  for (const type of ['mem', 'lmdb'] as const) {
    it(`loses no version when two replicas rotate one key at once (${type})`, async () => {
      const storage = await provider(type);
      const masterKey = randomBytes(32);
      const [a, b] = [await Keystores.open(storage, masterKey), await Keystores.open(storage, masterKey)];
      const { record: keystore } = await a.create('did:example:replicas');
      await a.addKey(keystore, 'k', version('k'));
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).rotate(keystore, 'k', () => version('k'))),
      );
      const numbers = answers.map((key) => key.versions.at(-1)?.version);
      expect(new Set(numbers).size).toBe(20);
      const stored = await (
        await storage.open<{ versions: Array<{ version: number }> }>(STORES.keys)
      ).get(`${keystore.id}:k`);
      expect(stored?.versions.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      // Every version opens under its own AAD, from either replica.
      const key = await b.key(keystore, 'k');
      for (const v of key.versions) expect(a.material(keystore, key, v).secret).toHaveLength(33);
    });
  }

  it('rotates past a version record whose key record was never written (a batch cut short)', async () => {
    const storage = await provider('mem');
    const keystores = await Keystores.open(storage, randomBytes(32));
    const { record: keystore } = await keystores.create('did:example:cut');
    await keystores.addKey(keystore, 'k', version('k'));
    await (await storage.open(STORES.keyVersions)).insert(`${keystore.id}:k:2`, { createdAt: 'then' });
    const rotated = await keystores.rotate(keystore, 'k', () => version('k'));
    expect(rotated.versions.map((v) => v.version)).toEqual([1, 3]);
  });

  it('refuses a master key other than the first one the database saw', async () => {
    const storage = await provider('mem');
    await Keystores.open(storage, randomBytes(32));
    await expect(Keystores.open(storage, randomBytes(32))).rejects.toThrow(/the master key is not the one/);
  });

  it('finds a key only in its own keystore', async () => {
    const storage = await provider('mem');
    const keystores = await Keystores.open(storage, randomBytes(32));
    const { record: mine } = await keystores.create('did:example:a');
    const { record: theirs } = await keystores.create('did:example:b');
    await keystores.addKey(mine, 'k', version('k'));
    await expect(keystores.key(theirs, 'k')).rejects.toMatchObject({ status: 404 });
    await expect(keystores.addKey(mine, 'k', version('k'))).rejects.toMatchObject({ status: 409 });
    await keystores.addKey(theirs, 'k', version('k'));
  });
});
