import { createDidResolver, parseDidUrl, type FetchLike } from '@anchor/common/did';
import { TtlCache } from '@anchor/common/httpsig';
import {
  verificationMethodsOf,
  type ControllerDocument,
  type ResolvedVerificationMethod,
  type VerificationMethodResolver,
} from '@anchor/common/jsonld';

export interface DidVerificationMethodOptions {
  /** did:web over plain http for every host (the original's dev mode); otherwise only for loopback hosts. */
  devMode: boolean;
  /** How long a resolved DID document is reused. */
  cacheTtlMs: number;
  /** Replaces `fetch` for did:web documents (tests). */
  fetch?: FetchLike;
}

/**
 * Resolves the verification methods proofs name, through did:key and did:web (as the original's VDR
 * registry), keeping each DID's methods for `cacheTtlMs` so a burst of credentials from one issuer costs
 * one did:web fetch. Failures are not cached.
 */
export function didVerificationMethodResolver(options: DidVerificationMethodOptions): VerificationMethodResolver {
  const registry = createDidResolver({
    web: { http: options.devMode ? 'always' : 'loopback', ...(options.fetch ? { fetch: options.fetch } : {}) },
  });
  const cache = new TtlCache<Promise<ResolvedVerificationMethod[]>>(1_000);

  const methodsOf = (did: string): Promise<ResolvedVerificationMethod[]> => {
    const cached = cache.get(did);
    if (cached) return cached;
    const loading = registry
      .resolve(did)
      .then(({ didDocument }) => verificationMethodsOf(didDocument as unknown as ControllerDocument));
    cache.set(did, loading, options.cacheTtlMs);
    loading.catch(() => cache.delete(did));
    return loading;
  };

  return async (verificationMethodId) => {
    const { did } = parseDidUrl(verificationMethodId);
    return (await methodsOf(did)).find((method) => method.id === verificationMethodId);
  };
}
