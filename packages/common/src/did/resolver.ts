import type { KeyPair } from '../crypto/index.js';
import { AppError, badRequest, notFound } from '../errors/index.js';
import { resolveDidKey } from './did-key.js';
import { resolveDidWeb, type DidWebResolveOptions } from './did-web.js';
import type {
  DidDocument,
  DidResolutionResult,
  Service,
  VerificationMethod,
  VerificationRelationship,
} from './document.js';
import { parseDid, parseDidUrl, type ParsedDid } from './syntax.js';
import { findService, findVerificationMethod, keyPairFromVerificationMethod } from './verification-method.js';

/**
 * One place that turns DIDs into documents and DID URLs into keys, whatever the method: each method plugs
 * in a resolver (did:key and did:web here; the node adds its own did:node resolver).
 */
export interface DidMethodResolver {
  /** Resolves a DID of this method; throws AppError not_found for an unknown DID. */
  resolve(did: string, parsed: ParsedDid): Promise<DidResolutionResult>;
}

export interface ResolvedVerificationMethod {
  method: VerificationMethod;
  key: KeyPair;
  document: DidDocument;
}

export class DidResolverRegistry {
  readonly #resolvers = new Map<string, DidMethodResolver>();

  register(method: string, resolver: DidMethodResolver): this {
    if (!/^[a-z0-9]+$/.test(method)) throw badRequest(`invalid DID method name '${method}'`);
    this.#resolvers.set(method, resolver);
    return this;
  }

  methods(): string[] {
    return [...this.#resolvers.keys()];
  }

  /** Resolves a DID (not a DID URL); bad_request for a malformed DID or a method nobody registered. */
  async resolve(did: string): Promise<DidResolutionResult> {
    const parsed = parseDid(did);
    const resolver = this.#resolvers.get(parsed.method);
    if (!resolver)
      throw badRequest(
        `DID method '${parsed.method}' is not supported (supported: ${this.methods().join(', ') || 'none'})`,
      );
    return resolver.resolve(did, parsed);
  }

  /** The document a DID URL's DID resolves to, or, with a fragment, the verification method or service it names. */
  async dereference(didUrl: string): Promise<DidDocument | VerificationMethod | Service> {
    const url = parseDidUrl(didUrl);
    const { didDocument, didDocumentMetadata } = await this.resolve(url.did);
    if (url.fragment === undefined) return didDocument;
    const options = { equivalentIds: equivalentIdsOf(url.did, didDocumentMetadata) };
    const reference = `${url.did}#${url.fragment}`;
    for (const find of [findVerificationMethod, findService]) {
      try {
        return find(didDocument, reference, options);
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'not_found')) throw error;
      }
    }
    throw notFound(`${didUrl} names neither a verification method nor a service of ${didDocument.id}`);
  }

  /**
   * The verification method a DID URL names, with its key, checked against `purpose` when given, e.g.
   * `resolveVerificationMethod(proof.verificationMethod, 'assertionMethod')`. Deactivated DIDs have no keys.
   */
  async resolveVerificationMethod(
    didUrl: string,
    purpose?: VerificationRelationship,
  ): Promise<ResolvedVerificationMethod> {
    const url = parseDidUrl(didUrl);
    if (url.fragment === undefined)
      throw badRequest(`${didUrl} names a DID, not one of its verification methods (no #fragment)`);
    const { didDocument, didDocumentMetadata } = await this.resolve(url.did);
    if (didDocumentMetadata?.deactivated) throw notFound(`${url.did} is deactivated`);
    const method = findVerificationMethod(didDocument, `${url.did}#${url.fragment}`, {
      ...(purpose ? { purpose } : {}),
      equivalentIds: equivalentIdsOf(url.did, didDocumentMetadata),
    });
    return { method, key: keyPairFromVerificationMethod(method), document: didDocument };
  }
}

/** The DID a document was asked for under, plus what the metadata says names the same subject. */
function equivalentIdsOf(did: string, metadata: DidResolutionResult['didDocumentMetadata']): string[] {
  return [did, ...(metadata?.canonicalId ? [metadata.canonicalId] : []), ...(metadata?.equivalentId ?? [])];
}

export const didKeyResolver: DidMethodResolver = {
  resolve: async (did) => ({ didDocument: resolveDidKey(did) }),
};

export function didWebResolver(options: DidWebResolveOptions = {}): DidMethodResolver {
  return { resolve: async (did) => ({ didDocument: await resolveDidWeb(did, options) }) };
}

/** A registry with did:key and did:web (through `options.fetch`, loopback http by default). */
export function createDidResolver(options: { web?: DidWebResolveOptions } = {}): DidResolverRegistry {
  return new DidResolverRegistry().register('key', didKeyResolver).register('web', didWebResolver(options.web));
}
