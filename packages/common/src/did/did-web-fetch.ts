import { createHttpClient, peerStatusOf, type HttpClientOptions } from '../http-client/index.js';
import { AppError, badRequest } from '../errors/index.js';
import {
  checkPeerUrl,
  createGuardedFetch,
  peerFetchPolicy,
  type GuardedFetchOptions,
} from '../httpsig/guarded-fetch.js';
import { didWebToUrl, type DidWebHttpPolicy, type DidWebResolveOptions, type FetchLike } from './did-web.js';

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

/**
 * A did:web `fetch` for DIDs a client names (a proof's issuer, a keystore's controller): a did:web is anyone's
 * to write, so its host gets the SSRF guard of `createGuardedFetch` (policy, usually `peerFetchPolicy`; a refused
 * address is a 400 from `resolveDidWeb`, with no connection made), and `ca` is trusted besides the bundled roots.
 */
export function guardedDidWebFetch(options: Omit<GuardedFetchOptions, 'purpose'>): FetchLike {
  const fetch = createGuardedFetch({
    maxBytes: 1024 * 1024,
    timeoutMs: 10_000,
    ...options,
    purpose: 'did:web documents',
  });
  return async (url, init) => {
    const { status, text } = await fetch(url, {
      accept: init.headers.accept ?? 'application/did+json, application/json',
      signal: init.signal,
      redirects: init.redirect === 'follow' ? 'follow' : 'manual',
    });
    return { status, text: async () => text };
  };
}

/**
 * How a service resolves the did:web DIDs its clients name (proof issuers, keystore controllers): through
 * `guardedDidWebFetch` under `peerFetchPolicy`, trusting `ca`. Plain http: every host in dev mode; loopback
 * hosts when the service itself is plain http (a local federation); never when it is served over https (its
 * loopback peers are https too, under a private CA).
 */
export function serviceDidWebOptions(
  service: ServiceEndpoint & { ca?: readonly Buffer[] | undefined },
): DidWebResolveOptions {
  return {
    http: plainHttpFor(service),
    fetch: guardedDidWebFetch({ policy: peerFetchPolicy(service), ca: service.ca ?? [] }),
  };
}

/**
 * For a did:web named now and resolved later (a keystore's controller): a 400 when the service's guard would
 * refuse its host (`checkPeerUrl`); nothing is fetched.
 */
export async function checkDidWebHost(did: string, service: ServiceEndpoint): Promise<void> {
  const url = didWebToUrl(did, { http: plainHttpFor(service) });
  try {
    await checkPeerUrl(url, { policy: peerFetchPolicy(service), purpose: 'did:web documents' });
  } catch (error) {
    throw error instanceof AppError && error.code === 'bad_request'
      ? badRequest(`${did}: ${error.message}`, { retryable: false })
      : error;
  }
}

/** What `serviceDidWebOptions` and `checkDidWebHost` judge a service by. */
export interface ServiceEndpoint {
  devMode: boolean;
  /** The service's external URL, when it has one. */
  ownEndpoint?: string | undefined;
  /** The host it listens on (judged when there is no external URL). */
  listenHost?: string | undefined;
  /** Whether it serves https itself (judged when there is no external URL). */
  servesTls?: boolean | undefined;
  /** `--allowed-peer-networks`: private networks its peers are on (see `peerFetchPolicy`). */
  allowedPeerNetworks?: readonly string[] | undefined;
}

function plainHttpFor(service: ServiceEndpoint): DidWebHttpPolicy {
  const secure =
    service.ownEndpoint !== undefined ? service.ownEndpoint.startsWith('https:') : service.servesTls === true;
  return service.devMode ? 'always' : secure ? 'never' : 'loopback';
}
