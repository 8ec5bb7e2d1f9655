import { KmsClient, kmsKeyTypeFor, kmsSigner, type KmsKeystore } from '@anchor/common/clients';
import type { Signer } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { errorMessage, isRetryable, notFound } from '@anchor/common/errors';
import type { StoreProvider } from '@anchor/common/storage';
import type { RetryPolicy } from '../vcs-options.js';
import { localSigningKeys } from './local-keys.js';
import { privateKeyFromBytes, type ProfileKeyType, type SigningKeys } from './signing-keys.js';

export interface KmsKeysOptions {
  url: string;
  /** A keystore made beforehand, with its capability; without, one is created on first start and remembered. */
  keystore?: { id: string; capability: string } | undefined;
  tls?: { ca: Buffer[] } | undefined;
  /** The key store: where a created keystore's id and capability are kept. */
  keyStorage: StoreProvider;
  /** How long start-up waits for a kms that does not answer yet (`--max-retries` and backoff). */
  retry: RetryPolicy;
}

interface KeystoreRecord {
  id: string;
  capability: string;
  controller: string;
}

const PREFIX = 'kms:';

/**
 * Issuer and holder keys in the kms: every key is created (or imported) in the service's keystore and every
 * signature is one kms call; the service keeps only key ids. A profile's `keyRef` is `kms:<keyId>`.
 */
export async function kmsSigningKeys(options: KmsKeysOptions): Promise<SigningKeys> {
  const client = new KmsClient({ url: options.url, ...(options.tls ? { tls: options.tls } : {}) });
  try {
    await reachable(client, options.retry);
    const keystore = client.keystore(...(await keystoreAccess(client, options)));
    return keysIn(client, keystore, options.keyStorage);
  } catch (error) {
    client.close();
    await options.keyStorage.close();
    throw error;
  }
}

function keysIn(client: KmsClient, keystore: KmsKeystore, keyStorage: StoreProvider): SigningKeys {
  const signers = new Map<string, Promise<Signer>>();
  const signerOf = (keyId: string): Promise<Signer> => {
    const keyRef = `${PREFIX}${keyId}`;
    let signer = signers.get(keyRef);
    if (!signer) {
      signer = kmsSigner(keystore, keyId).then((kms) => ({
        type: kms.type,
        publicKey: kms.publicKey,
        keyRef,
        sign: (data: Uint8Array) => kms.sign(data),
      }));
      signers.set(keyRef, signer);
      signer.catch(() => signers.delete(keyRef));
    }
    return signer;
  };
  return {
    kind: 'kms',
    createKey: async (type: ProfileKeyType) => signerOf((await keystore.createKey(kmsKeyTypeFor(type))).keyId),
    async importKey(type, privateKey) {
      const pkcs8 = privateKeyFromBytes(type, privateKey).privateKeyPem();
      const der = Buffer.from(pkcs8.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
      return signerOf((await keystore.importKey(kmsKeyTypeFor(type), der)).keyId);
    },
    signer(keyRef) {
      if (!keyRef.startsWith(PREFIX)) throw notFound(`key ${keyRef} is not a kms key (it was made without --kms-url)`);
      return signerOf(keyRef.slice(PREFIX.length));
    },
    async status() {
      try {
        await keystore.info();
        return 'success';
      } catch (error) {
        return `kms ${client.url}: ${errorMessage(error)}`;
      }
    },
    async close() {
      client.close();
      await keyStorage.close();
    },
  };
}

/** The keystore given, or the one this service created before, or a new one (its controller a local did:key). */
async function keystoreAccess(client: KmsClient, options: KmsKeysOptions): Promise<[string, { capability: string }]> {
  if (options.keystore) return [options.keystore.id, { capability: options.keystore.capability }];
  const store = await options.keyStorage.open<KeystoreRecord>('vcs-kms-keystore');
  const known = await store.get(client.url);
  if (known) return [known.id, { capability: known.capability }];
  const controllerKeys = await localSigningKeys(options.keyStorage, { closeProvider: false });
  const controller = didKeyFromKeyPair((await controllerKeys.createKey('Ed25519')).publicKey);
  const created = await client.createKeystore({ controller });
  if (!created.capability) throw new Error(`kms ${client.url} created keystore ${created.id} without a capability`);
  await store.put(client.url, { id: created.id, capability: created.capability, controller });
  return [created.id, { capability: created.capability }];
}

/** A kms started after the vcs (a container starting in any order) is waited for, with the retry policy's backoff. */
async function reachable(client: KmsClient, retry: RetryPolicy): Promise<void> {
  for (let attempt = 0, wait = retry.initialBackoffMs; ; attempt++, wait *= retry.factor) {
    try {
      await client.health();
      return;
    } catch (error) {
      if (!isRetryable(error) || attempt >= retry.maxRetries)
        throw new Error(`kms ${client.url} cannot be reached: ${errorMessage(error)}`, { cause: error });
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
