import { readFile } from 'node:fs/promises';
import { KeyPair } from '@anchor/common/crypto';
import { badRequest } from '@anchor/common/errors';
import type { ConfigValues } from '../stores/config-values.js';

/** The node's two signing keys: one for anchor credentials (published in /.well-known/did.json), one for HTTP signatures. */
export interface NodeKeys {
  readonly vcSigningKey: KeyPair;
  /** Key id (fragment) of the anchor-credential key in the domain DID document. */
  readonly vcKeyId: string;
  readonly httpSigningKey: KeyPair;
  readonly httpKeyId: string;
}

async function loadKey(
  file: string | undefined,
  settingName: string,
  config: ConfigValues,
  what: string,
): Promise<KeyPair> {
  if (file !== undefined) {
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (error) {
      throw badRequest(`cannot read ${what} key file ${file}: ${(error as Error).message}`, { cause: error });
    }
    const key = KeyPair.fromPem(pem);
    if (!key.isPrivate) throw badRequest(`${what} key file ${file} holds no private key`);
    if (key.type !== 'Ed25519') throw badRequest(`${what} key must be Ed25519, got ${key.type}`);
    return key;
  }
  // Generated once per deployment and kept in the database, so every instance signs with the same key.
  const pem = await config.getOrInit<string>(settingName, () => KeyPair.generate('Ed25519').privateKeyPem());
  return KeyPair.fromPem(pem);
}

export async function loadNodeKeys(
  options: {
    vcSignKeyFile?: string | undefined;
    vcSignKeyId: string;
    httpSignKeyFile?: string | undefined;
    httpSignKeyId: string;
  },
  config: ConfigValues,
): Promise<NodeKeys> {
  return {
    vcSigningKey: await loadKey(options.vcSignKeyFile, 'key:vc-sign', config, 'anchor credential signing'),
    vcKeyId: options.vcSignKeyId,
    httpSigningKey: await loadKey(options.httpSignKeyFile, 'key:http-sign', config, 'HTTP signing'),
    httpKeyId: options.httpSignKeyId,
  };
}
