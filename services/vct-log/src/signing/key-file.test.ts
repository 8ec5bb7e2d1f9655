import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateLogKey } from './key-file.js';

describe('log key file', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('vct-key-');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('generates an Ed25519 key on first start, private to the owner, and loads the same key afterwards', async () => {
    const file = join(dir.path, 'nested', 'key.pem');
    const first = await loadOrCreateLogKey(file, undefined);
    expect(first.created).toBe(true);
    expect(first.key.type).toBe('Ed25519');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const second = await loadOrCreateLogKey(file, undefined);
    expect(second.created).toBe(false);
    expect(second.key.publicKeyBytes()).toEqual(first.key.publicKeyBytes());
  });

  it('generates a P-256 key when asked, and refuses a different type for an existing key', async () => {
    const file = join(dir.path, 'key.pem');
    expect((await loadOrCreateLogKey(file, 'P-256')).key.type).toBe('P-256');
    await expect(loadOrCreateLogKey(file, 'Ed25519')).rejects.toThrow(/is P-256, but --key-type asks for Ed25519/);
    expect((await loadOrCreateLogKey(file, undefined)).key.type).toBe('P-256');
  });

  it('loads a key provided as PKCS#8 PEM', async () => {
    const key = KeyPair.generate('P-256');
    const file = join(dir.path, 'given.pem');
    await writeFile(file, key.privateKeyPem());
    const loaded = await loadOrCreateLogKey(file, undefined);
    expect(loaded.created).toBe(false);
    expect(loaded.key.publicKeyBytes()).toEqual(key.publicKeyBytes());
  });

  it('rejects files that hold no usable private key, without overwriting them', async () => {
    const garbage = join(dir.path, 'garbage.pem');
    await writeFile(garbage, 'not a key');
    await expect(loadOrCreateLogKey(garbage, undefined)).rejects.toThrow(/does not hold a PEM private key/);
    expect(await readFile(garbage, 'utf8')).toBe('not a key');

    const publicOnly = join(dir.path, 'public.pem');
    await writeFile(publicOnly, KeyPair.generate('Ed25519').publicKeyPem());
    await expect(loadOrCreateLogKey(publicOnly, undefined)).rejects.toThrow(/holds a public key/);

    const wrongType = join(dir.path, 'k1.pem');
    await writeFile(wrongType, KeyPair.generate('secp256k1').privateKeyPem());
    await expect(loadOrCreateLogKey(wrongType, undefined)).rejects.toThrow(/must be Ed25519 or P-256/);

    const directory = join(dir.path, 'a-directory');
    await mkdir(directory);
    await expect(loadOrCreateLogKey(directory, undefined)).rejects.toThrow(/cannot read the log key file/);
  });

  it('gives every concurrent first start the same key', async () => {
    const file = join(dir.path, 'race.pem');
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateLogKey(file, undefined)));
    expect(keys.filter((k) => k.created)).toHaveLength(1);
    const publicKeys = new Set(keys.map((k) => k.key.publicKeyBytes().toString('hex')));
    expect(publicKeys.size).toBe(1);
  });
});
