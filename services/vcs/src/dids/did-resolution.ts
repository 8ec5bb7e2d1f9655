import {
  createDidResolver,
  didNodeOverHttp,
  fetchDidResolution,
  parseDidUrl,
  type DidResolutionResult,
  type DidResolverRegistry,
  type DidWebResolveOptions,
} from '@anchor/common/did';
import { notFound } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import { TtlCache } from '@anchor/common/httpsig';
import {
  verificationMethodsOf,
  type ControllerDocument,
  type ResolvedVerificationMethod,
  type VerificationMethodResolver,
} from '@anchor/common/jsonld';

export interface DidResolutionOptions {
  http: HttpClient;
  /** did:node documents are resolved here (`<nodeUrl>/sidetree/v1/identifiers/<did>`). */
  nodeUrl?: string | undefined;
  /** Every other method except key and web (`<url>/1.0/identifiers/<did>`). */
  universalResolverUrl?: string | undefined;
  tokens: { node?: string | undefined; resolver?: string | undefined };
  cacheTtlMs: number;
  /** did:web resolution (`serviceDidWebOptions`: the SSRF guard and `--tls-cacerts`). */
  web: DidWebResolveOptions;
}

/** A DID's verification methods and every id its document is also known by (a did:node's canonical and hinted forms). */
interface ResolvedDid {
  ids: Set<string>;
  methods: ResolvedVerificationMethod[];
}

/**
 * Resolves DIDs for proof creation and verification: did:key offline, did:web over HTTP (a DID a client names:
 * through the SSRF guard), did:node through the
 * configured node, anything else through the universal resolver. Each DID's methods are kept for the cache TTL;
 * failures are not cached.
 */
export class DidResolution {
  readonly registry: DidResolverRegistry;
  private readonly cache = new TtlCache<Promise<ResolvedDid>>(10_000);

  constructor(private readonly options: DidResolutionOptions) {
    this.registry = createDidResolver({ web: options.web });
    const { nodeUrl } = options;
    if (nodeUrl)
      this.registry.register('node', didNodeOverHttp({ url: nodeUrl, token: options.tokens.node }, options.http));
  }

  /** A DID's resolution: its method's resolver, else the universal resolver when one is configured. */
  resolve(did: string): Promise<DidResolutionResult> {
    const { universalResolverUrl } = this.options;
    const method = /^did:([a-z0-9]+):/.exec(did)?.[1];
    if (universalResolverUrl && method && !this.registry.methods().includes(method))
      return fetchDidResolution(
        this.options.http,
        `${universalResolverUrl}/1.0/identifiers/${did}`,
        did,
        this.options.tokens.resolver,
      );
    return this.registry.resolve(did);
  }

  /** The resolver proof verification takes. */
  readonly verificationMethods: VerificationMethodResolver = async (verificationMethodId) => {
    const { did, fragment } = parseDidUrl(verificationMethodId);
    const resolved = await this.resolveMethods(did);
    const exact = resolved.methods.find((method) => method.id === verificationMethodId);
    if (exact) return exact;
    // The proof may name the key under another form of the same DID (did:node before and after publication).
    const same = resolved.methods.find((method) => {
      const at = method.id.indexOf('#');
      return at > 0 && method.id.slice(at + 1) === fragment && resolved.ids.has(method.id.slice(0, at));
    });
    return same && resolved.ids.has(did) ? { ...same, id: verificationMethodId } : undefined;
  };

  /**
   * Whether `did` controls the method `methodId` for `purpose`: its DID document (as resolved now, under any
   * of its forms) lists the method under that relationship. This binds a credential's issuer (assertionMethod)
   * or a presentation's holder (authentication) to the key that signed, as the VC Data Model asks.
   */
  async controls(did: string, methodId: string, purpose: string): Promise<boolean> {
    const resolved = await this.resolveMethods(did);
    const at = methodId.indexOf('#');
    if (at <= 0 || !resolved.ids.has(methodId.slice(0, at))) return false;
    const fragment = methodId.slice(at + 1);
    return resolved.methods.some((method) => {
      if (!method.purposes.includes(purpose)) return false;
      if (method.id === methodId) return true;
      const hash = method.id.indexOf('#');
      return hash > 0 && method.id.slice(hash + 1) === fragment && resolved.ids.has(method.id.slice(0, hash));
    });
  }

  /** A DID's methods (cached). */
  resolveMethods(did: string): Promise<ResolvedDid> {
    const cached = this.cache.get(did);
    if (cached) return cached;
    const loading = this.resolve(did).then((result) => {
      if (result.didDocumentMetadata?.deactivated) throw notFound(`${did} is deactivated`);
      const ids = new Set([did, result.didDocument.id, ...equivalentIds(result)]);
      return { ids, methods: verificationMethodsOf(result.didDocument as unknown as ControllerDocument) };
    });
    this.cache.set(did, loading, this.options.cacheTtlMs);
    loading.catch(() => this.cache.delete(did));
    return loading;
  }

  /** Forgets a DID (a profile's DID was just created and must be read afresh). */
  forget(did: string): void {
    this.cache.delete(did);
  }
}

function equivalentIds(result: DidResolutionResult): string[] {
  const metadata = result.didDocumentMetadata;
  return [...(metadata?.canonicalId ? [metadata.canonicalId] : []), ...(metadata?.equivalentId ?? [])];
}
