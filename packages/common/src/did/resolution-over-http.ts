import { notFound } from '../errors/index.js';
import { peerStatusOf, type HttpClient } from '../http-client/index.js';
import type { DidMethodResolver } from './resolver.js';
import type { DidResolutionResult } from './document.js';

/**
 * A DID resolution result from a resolver's HTTP endpoint (`<base>/<did>`: a node's
 * `/sidetree/v1/identifiers/`, a universal resolver's `/1.0/identifiers/`). An answer without a DID document,
 * a 404 or a 410 is the resolver contract's not_found; anything else the client throws passes on.
 */
export async function fetchDidResolution(
  http: HttpClient,
  url: string,
  did: string,
  token?: string,
): Promise<DidResolutionResult> {
  try {
    const { data } = await http.get<DidResolutionResult>(url, token ? { token } : {});
    if (typeof data !== 'object' || data === null || typeof data.didDocument !== 'object' || data.didDocument === null)
      throw notFound(`resolving ${did} gave no DID document`);
    return data;
  } catch (error) {
    if (peerStatusOf(error) === 404 || peerStatusOf(error) === 410) throw notFound(`${did} not found`);
    throw error;
  }
}

/** did:node resolved by a node's resolution endpoint (`http` may be asked for at resolution time). */
export function didNodeOverHttp(
  node: { url: string; token?: string | undefined },
  http: HttpClient | (() => HttpClient),
): DidMethodResolver {
  return {
    resolve: (did) =>
      fetchDidResolution(
        typeof http === 'function' ? http() : http,
        `${node.url}/sidetree/v1/identifiers/${encodeURIComponent(did)}`,
        did,
        node.token,
      ),
  };
}
