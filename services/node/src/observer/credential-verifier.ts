import { parseDidUrl, type DidResolverRegistry } from '@anchor/common/did';
import { errorMessage, permanent } from '@anchor/common/errors';
import { TtlCache } from '@anchor/common/httpsig';
import {
  ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
  verificationMethodsOf,
  verifyDocument,
  type ControllerDocument,
  type DocumentLoader,
  type ResolvedVerificationMethod,
  type VerificationMethodResolver,
} from '@anchor/common/jsonld';

/**
 * Checks every proof of an anchor credential (the node's own, a log witness's, remote witnesses') through
 * the node's DID resolver registry: did:web (this node's own from memory, others over the network; plain
 * http on loopback), did:key, did:node. Controller documents are cached for `cacheTtlMs`, so a peer's
 * did.json is fetched once per burst of its anchors.
 */
export class CredentialVerifier {
  private readonly cache: TtlCache<Promise<ResolvedVerificationMethod[]>>;
  private readonly resolver: VerificationMethodResolver;

  constructor(
    private readonly didResolver: DidResolverRegistry,
    private readonly cacheTtlMs: number,
    /** Default: the bundled contexts only; the node passes its operator contexts' loader. */
    private readonly documentLoader?: DocumentLoader,
  ) {
    this.cache = new TtlCache(1_000);
    this.resolver = async (id) => {
      const { did } = parseDidUrl(id);
      return (await this.methodsOf(did)).find((method) => method.id === id);
    };
  }

  /**
   * Throws a permanent error naming the first proof that fails; resolution failures worth retrying (a
   * peer's did.json unreachable) are rethrown as retryable.
   */
  async verify(credential: object): Promise<void> {
    let verification;
    try {
      verification = await verifyDocument(credential, {
        resolver: this.resolver,
        allowUndefinedTerms: [...ANCHOR_CREDENTIAL_UNDEFINED_TERMS],
        ...(this.documentLoader ? { documentLoader: this.documentLoader } : {}),
      });
    } catch (error) {
      if ((error as { retryable?: boolean }).retryable === true) throw error;
      throw permanent(`anchor credential cannot be verified: ${errorMessage(error)}`);
    }
    if (!verification.verified) {
      const failed = verification.proofs.find((proof) => !proof.verified);
      const reason = failed?.failure
        ? `proof ${failed.index} (${failed.failure.check}): ${failed.failure.message}`
        : (verification.error ?? 'not verified');
      throw permanent(`anchor credential proof verification failed: ${reason}`);
    }
  }

  private methodsOf(did: string): Promise<ResolvedVerificationMethod[]> {
    const cached = this.cache.get(did);
    if (cached) return cached;
    const loading = this.didResolver
      .resolve(did)
      .then(({ didDocument }) => verificationMethodsOf(didDocument as unknown as ControllerDocument));
    this.cache.set(did, loading, this.cacheTtlMs);
    loading.catch(() => this.cache.delete(did));
    return loading;
  }
}
