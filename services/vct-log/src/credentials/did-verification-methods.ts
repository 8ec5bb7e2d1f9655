import { createDidResolver, parseDidUrl, type DidWebResolveOptions } from '@anchor/common/did';
import { TtlCache } from '@anchor/common/httpsig';
import {
  verificationMethodsOf,
  type ControllerDocument,
  type ResolvedVerificationMethod,
  type VerificationMethodResolver,
} from '@anchor/common/jsonld';

export interface DidVerificationMethodOptions {
  /** How did:web documents are fetched (`serviceDidWebOptions`: the SSRF guard and `--tls-cacerts`). */
  web: DidWebResolveOptions;
  /** How long a resolved DID document is reused. */
  cacheTtlMs: number;
}

/**
 * Resolves the verification methods proofs name, through did:key and did:web (as trustbloc/vct's VDR
 * registry), keeping each DID's methods for `cacheTtlMs` so a burst of credentials from one issuer costs
 * one did:web fetch. Failures are not cached.
 */
export function didVerificationMethodResolver(options: DidVerificationMethodOptions): VerificationMethodResolver {
  const registry = createDidResolver({ web: options.web });
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
