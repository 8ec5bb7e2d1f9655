import { readFile } from 'node:fs/promises';
import { connectKms, openKmsSigner, type KmsSettings } from '@anchor/common/clients';
import { KeyPair, localSigner, type Signer } from '@anchor/common/crypto';
import { badRequest } from '@anchor/common/errors';
import type { ConfigValues } from '../runtime-config/config-values.js';

/**
 * The node's two signers: one for anchor credentials (its key published in /.well-known/did.json), one for
 * HTTP signatures. Local keys, or keys held in the kms (`--kms-url`): every signature goes through these.
 */
export interface NodeKeys {
  readonly vcSigner: Signer;
  /** Key id (fragment) of the anchor-credential key in the domain DID document. */
  readonly vcKeyId: string;
  readonly httpSigner: Signer;
  readonly httpKeyId: string;
  /** `success`, or why the node could not sign now (`kmsStatus` of the health check). */
  health(): Promise<string>;
  close(): void;
}

export interface NodeKeyOptions {
  vcSignKeyFile?: string | undefined;
  vcSignKeyId: string;
  httpSignKeyFile?: string | undefined;
  httpSignKeyId: string;
  /** Signing through the kms: the keys are the kms's, none is read or generated here. */
  kms?: (KmsSettings & { httpKeyId?: string | undefined; timeoutMs?: number; tls?: { ca: Buffer[] } }) | undefined;
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

export async function loadNodeKeys(options: NodeKeyOptions, config: ConfigValues): Promise<NodeKeys> {
  if (options.kms !== undefined) return kmsNodeKeys(options, options.kms, config);
  const vcSigner = localSigner(
    await loadKey(options.vcSignKeyFile, 'key:vc-sign', config, 'anchor credential signing'),
  );
  const httpSigner = localSigner(await loadKey(options.httpSignKeyFile, 'key:http-sign', config, 'HTTP signing'));
  return {
    vcSigner,
    vcKeyId: options.vcSignKeyId,
    httpSigner,
    httpKeyId: options.httpSignKeyId,
    health: async () => 'success',
    close: () => undefined,
  };
}

/**
 * Both keys in the kms: `--kms-key-id` names the anchor-credential key and, unless `--kms-http-key-id` names
 * another, the HTTP-signing key too; a key not named is created in the keystore on first start and its id
 * kept in the database, so every instance of a deployment uses the same kms keys.
 */
async function kmsNodeKeys(
  options: NodeKeyOptions,
  kms: NonNullable<NodeKeyOptions['kms']>,
  config: ConfigValues,
): Promise<NodeKeys> {
  const connection = connectKms(kms, {
    ...(kms.timeoutMs !== undefined ? { timeoutMs: kms.timeoutMs } : {}),
    ...(kms.tls !== undefined ? { tls: kms.tls } : {}),
  });
  try {
    const signerFor = (keyId: string | undefined, settingName: string) =>
      openKmsSigner(connection.keystore, {
        keyId,
        keyType: 'Ed25519',
        remembered: () => config.get<string>(settingName),
        remember: (created) => config.getOrInit<string>(settingName, () => created),
      });
    const vcSigner = await signerFor(kms.keyId, 'kms-key:vc-sign');
    const httpSigner = await signerFor(kms.httpKeyId ?? kms.keyId, 'kms-key:http-sign');
    return {
      vcSigner,
      vcKeyId: options.vcSignKeyId,
      httpSigner,
      httpKeyId: options.httpSignKeyId,
      health: async () => {
        const same = httpSigner.keyRef === vcSigner.keyRef;
        const [vc, http] = await Promise.all([vcSigner.health(), same ? 'success' : httpSigner.health()]);
        return vc !== 'success' ? vc : http;
      },
      close: () => connection.close(),
    };
  } catch (error) {
    connection.close();
    throw error;
  }
}
