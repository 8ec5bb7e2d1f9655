import type { Signer } from '@anchor/common/crypto';
import { didKeyFromKeyPair, resolveDidKey } from '@anchor/common/did';
import { AppError, errorMessage, unavailable } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import { addPublicKeys, createRequest, documentKey, serializeRequest } from '@anchor/sidetree';
import type { ProfileKeyType, SigningKeys } from '../keys/signing-keys.js';
import type { DidResolution } from './did-resolution.js';

export type KeyPurpose = 'assertionMethod' | 'authentication';

/** A DID the service made for a profile, with the key it signs with and the keys that control the DID. */
export interface CreatedDid {
  did: string;
  /** The signing key's verification method (the profile's `creator`). */
  verificationMethod: string;
  signer: Signer;
  /** did:node: the keys whose commitments the create operation holds, for later updates and recovery. */
  updateKeyRef?: string;
  recoveryKeyRef?: string;
}

export interface DidCreationOptions {
  keys: SigningKeys;
  resolution: DidResolution;
  http: HttpClient;
  /** With a node: did:node DIDs anchored there; without: did:key. */
  nodeUrl?: string | undefined;
  nodeToken?: string | undefined;
  /** How long to wait for a new did:node to resolve on the node. */
  publishTimeoutMs: number;
}

const SIGNING_KEY_ID = 'key-1';

/** Creates profile DIDs: a did:node on the configured node (keys in the service's key store or kms), else a did:key. */
export class DidCreation {
  constructor(private readonly options: DidCreationOptions) {}

  get method(): 'node' | 'key' {
    return this.options.nodeUrl ? 'node' : 'key';
  }

  async create(type: ProfileKeyType): Promise<CreatedDid> {
    const signer = await this.options.keys.createKey(type);
    if (!this.options.nodeUrl) {
      const did = didKeyFromKeyPair(signer.publicKey);
      const method = resolveDidKey(did).verificationMethod?.[0];
      if (!method) throw new Error(`did:key document of ${did} has no verification method`);
      return { did, verificationMethod: method.id, signer };
    }
    return this.createOnNode(this.options.nodeUrl, signer);
  }

  private async createOnNode(nodeUrl: string, signer: Signer): Promise<CreatedDid> {
    const [update, recovery] = await Promise.all([
      this.options.keys.createKey('Ed25519'),
      this.options.keys.createKey('Ed25519'),
    ]);
    const built = createRequest({
      recoveryKey: recovery.publicKey,
      updateKey: update.publicKey,
      anchorOrigin: nodeUrl,
      patches: [
        addPublicKeys(
          documentKey(SIGNING_KEY_ID, signer.publicKey, { purposes: ['authentication', 'assertionMethod'] }),
        ),
      ],
    });
    const token = this.options.nodeToken;
    try {
      await this.options.http.request(`${nodeUrl}/sidetree/v1/operations`, {
        method: 'POST',
        body: serializeRequest(built.request),
        headers: { 'content-type': 'application/json' },
        ...(token ? { token } : {}),
      });
    } catch (error) {
      throw new AppError(
        error instanceof AppError && error.status < 500 ? 'bad_gateway' : 'unavailable',
        `creating a did:node on ${nodeUrl} failed: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    await this.waitResolvable(built.did);
    return {
      did: built.did,
      verificationMethod: `${built.did}#${SIGNING_KEY_ID}`,
      signer,
      updateKeyRef: update.keyRef,
      recoveryKeyRef: recovery.keyRef,
    };
  }

  /** The node answers for a new DID at once when it caches unpublished operations, else once anchored. */
  private async waitResolvable(did: string): Promise<void> {
    const deadline = Date.now() + this.options.publishTimeoutMs;
    let last: unknown;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
      this.options.resolution.forget(did);
      try {
        await this.options.resolution.resolveMethods(did);
        return;
      } catch (error) {
        last = error;
      }
      if (Date.now() + wait > deadline)
        throw unavailable(
          `${did} did not resolve on ${this.options.nodeUrl} within ${this.options.publishTimeoutMs} ms: ${errorMessage(last)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
