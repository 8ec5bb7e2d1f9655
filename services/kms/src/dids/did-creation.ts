import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair, resolveDidKey } from '@anchor/common/did';
import { AppError, errorMessage } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import { addPublicKeys, createRequest, documentKey, serializeRequest } from '@anchor/sidetree';
import { generateKey } from '../crypto/index.js';
import type { KeystoreRecord } from '../keystores/keystore-records.js';
import type { Keystores } from '../keystores/keystores.js';
import { newVersion, randomKeyId } from '../api/kms-operations.js';

export interface DidNodeTarget {
  url: string;
  token?: string | undefined;
  /** The anchor origin the create names (the node's own, by default its URL). */
  anchorOrigin: string;
}

export interface CreatedDid {
  did: string;
  /** The signing key's verification method. */
  verificationMethod: string;
  /** The signing key's id in the keystore. */
  keyID: string;
  /** Every key made for the DID: `signing`, and for did:node `update` and `recovery`. */
  keyIDs: Record<string, string>;
  /** did:node: the long form, resolvable before the DID is anchored. */
  longFormDid?: string;
}

const SIGNING_KEY_FRAGMENT = 'key-1';

/**
 * DIDs whose private keys stay in a keystore: did:key over a new ED25519 key, or did:node, created on the
 * configured node with an ED25519 signing key (authentication, assertionMethod) and ED25519 update and recovery
 * keys, all three in the keystore (the create request carries only public keys and commitments).
 */
export class DidCreation {
  constructor(
    private readonly keystores: Keystores,
    private readonly http: () => HttpClient,
    private readonly node: DidNodeTarget | undefined,
  ) {}

  get defaultMethod(): 'key' | 'node' {
    return this.node ? 'node' : 'key';
  }

  async create(keystore: KeystoreRecord, method: 'key' | 'node'): Promise<CreatedDid> {
    if (method === 'key') {
      const signing = await this.newEd25519Key(keystore);
      const did = didKeyFromKeyPair(signing.publicKey);
      const verificationMethod =
        resolveDidKey(did).verificationMethod?.[0]?.id ?? `${did}#${did.slice('did:key:'.length)}`;
      return { did, verificationMethod, keyID: signing.keyId, keyIDs: { signing: signing.keyId } };
    }
    const node = this.node;
    if (!node) throw new AppError('bad_request', 'method node: this kms has no --node-url');
    const [signing, update, recovery] = [
      await this.newEd25519Key(keystore),
      await this.newEd25519Key(keystore),
      await this.newEd25519Key(keystore),
    ];
    const built = createRequest({
      recoveryKey: recovery.publicKey,
      updateKey: update.publicKey,
      anchorOrigin: node.anchorOrigin,
      patches: [
        addPublicKeys(
          documentKey(SIGNING_KEY_FRAGMENT, signing.publicKey, { purposes: ['authentication', 'assertionMethod'] }),
        ),
      ],
    });
    try {
      await this.http().request(`${node.url}/sidetree/v1/operations`, {
        method: 'POST',
        body: serializeRequest(built.request),
        headers: { 'content-type': 'application/json' },
        ...(node.token ? { token: node.token } : {}),
      });
    } catch (error) {
      throw new AppError('bad_gateway', `creating the did:node on ${node.url} failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return {
      did: built.did,
      verificationMethod: `${built.did}#${SIGNING_KEY_FRAGMENT}`,
      keyID: signing.keyId,
      keyIDs: { signing: signing.keyId, update: update.keyId, recovery: recovery.keyId },
      longFormDid: built.longFormDid,
    };
  }

  private async newEd25519Key(keystore: KeystoreRecord): Promise<{ keyId: string; publicKey: KeyPair }> {
    const keyId = randomKeyId();
    const version = newVersion(generateKey('ED25519'), keyId);
    await this.keystores.addKey(keystore, keyId, version);
    return { keyId, publicKey: KeyPair.fromPublicKeyBytes('Ed25519', version.publicKey as Uint8Array) };
  }
}
