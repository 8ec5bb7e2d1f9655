import type { DidMethodResolver, DidResolutionResult } from '@anchor/common/did';
import type { ResolutionService } from './resolution-service.js';

/**
 * did:node (and its aliases) for `ctx.didResolver`: proofs and signatures whose verification method is a
 * did:node DID URL resolve through this node's own view of the DID.
 */
export function nodeDidResolver(resolution: ResolutionService): DidMethodResolver {
  return {
    async resolve(did: string): Promise<DidResolutionResult> {
      const { result } = await resolution.resolve(did);
      return result as unknown as DidResolutionResult;
    },
  };
}

/** The DID method names (`node` for `did:node`) a namespace and its aliases stand for. */
export function methodNames(namespace: string, aliases: readonly string[]): string[] {
  return [
    ...new Set(
      [namespace, ...aliases].map((ns) => ns.replace(/^did:/, '')).filter((method) => /^[a-z0-9]+$/.test(method)),
    ),
  ];
}
