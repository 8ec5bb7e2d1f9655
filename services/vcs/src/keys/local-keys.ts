import { randomUUID } from 'node:crypto';
import { KeyPair, localSigner, type Jwk, type Signer } from '@anchor/common/crypto';
import { notFound } from '@anchor/common/errors';
import type { Store, StoreProvider } from '@anchor/common/storage';
import { privateKeyFromBytes, type ProfileKeyType, type SigningKeys } from './signing-keys.js';

interface LocalKeyRecord {
  type: ProfileKeyType;
  /** The private JWK. This store is the `--kms-secrets-database-*` one, kept apart from the main store. */
  jwk: Jwk;
}

const PREFIX = 'local:';

/** Keys held in this process, persisted in the key store; for development and single-host deployments. */
export async function localSigningKeys(
  provider: StoreProvider,
  options: { closeProvider?: boolean } = {},
): Promise<SigningKeys> {
  const store: Store<LocalKeyRecord> = await provider.open<LocalKeyRecord>('vcs-local-keys');
  const signers = new Map<string, Signer>();
  const signerOf = (keyRef: string, key: KeyPair): Signer => {
    const signer = { ...localSigner(key), keyRef };
    signers.set(keyRef, signer);
    return signer;
  };
  const keep = async (type: ProfileKeyType, key: KeyPair): Promise<Signer> => {
    const keyRef = `${PREFIX}${randomUUID()}`;
    await store.put(keyRef.slice(PREFIX.length), { type, jwk: key.privateJwk() });
    return signerOf(keyRef, key);
  };
  return {
    kind: 'local',
    createKey: (type) => keep(type, KeyPair.generate(type)),
    async importKey(type, privateKey) {
      return keep(type, privateKeyFromBytes(type, privateKey));
    },
    async signer(keyRef) {
      const cached = signers.get(keyRef);
      if (cached) return cached;
      if (!keyRef.startsWith(PREFIX)) throw notFound(`key ${keyRef} is not a local key (is --kms-url missing?)`);
      const record = await store.get(keyRef.slice(PREFIX.length));
      if (!record) throw notFound(`local key ${keyRef} not found`);
      return signerOf(keyRef, KeyPair.fromJwk(record.jwk));
    },
    async status() {
      await provider.ping();
      return 'success';
    },
    close: async () => {
      if (options.closeProvider ?? true) await provider.close();
    },
  };
}
