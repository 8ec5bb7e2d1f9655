import { createHttpClient, peerStatusOf, type HttpClientOptions } from '../http-client/index.js';
import type { FetchLike } from './did-web.js';

/**
 * A did:web `fetch` over the common outbound client, for a service whose outbound https trusts CAs of its
 * own (`--tls-cacerts`): the global fetch knows only Node's bundled roots. Redirects are not followed, as
 * `resolveDidWeb` asks; a peer's status is handed back for `resolveDidWeb` to judge.
 */
export function didWebFetch(options: Pick<HttpClientOptions, 'tls' | 'timeoutMs'>): FetchLike {
  const client = createHttpClient({ ...options, maxRedirects: 0 });
  return async (url, init) => {
    try {
      const { status, data } = await client.get<string>(url, {
        headers: init.headers,
        responseType: 'text',
        signal: init.signal,
      });
      return { status, text: async () => data };
    } catch (error) {
      const status = peerStatusOf(error);
      if (status === undefined) throw error;
      return { status, text: async () => '' };
    }
  };
}
