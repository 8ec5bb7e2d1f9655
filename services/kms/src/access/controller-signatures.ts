import { createDidResolver, didNodeOverHttp, type DidWebResolveOptions } from '@anchor/common/did';
import { unauthorized } from '@anchor/common/errors';
import type { SignatureAuthenticator } from '@anchor/common/http';
import type { HttpClient } from '@anchor/common/http-client';
import { createSignatureAuthenticator } from '@anchor/common/httpsig';

export interface ControllerSignatureOptions {
  /** Resolves did:node controllers; without it they are refused (401). */
  node?: { url: string; token?: string | undefined } | undefined;
  /** The kit's outbound client (exists once the service is built; asked at request time). */
  http: () => HttpClient;
  /** How long a controller's key is reused. */
  cacheTtlMs: number;
  /** did:web resolution (`serviceDidWebOptions`: the SSRF guard and `--tls-cacerts`). */
  web: DidWebResolveOptions;
}

/**
 * Verifies HTTP signatures whose keyId is a DID URL: did:key offline, did:web over https (http on loopback, or
 * anywhere in dev mode) through the SSRF guard, did:node on the configured node. The verified actor is the DID,
 * which the keystore routes compare with the keystore's controller. A keyId that is not a DID URL is refused
 * without fetching it: a controller is a DID, and a keystore request must not make the kms fetch an arbitrary URL.
 */
export function controllerSignatureAuthenticator(options: ControllerSignatureOptions): SignatureAuthenticator {
  const resolver = createDidResolver({ web: options.web });
  if (options.node) resolver.register('node', didNodeOverHttp(options.node, options.http));
  return createSignatureAuthenticator({
    cacheTtlMs: options.cacheTtlMs,
    resolveDidKey: async (didUrl) => (await resolver.resolveVerificationMethod(didUrl)).key,
    fetchJson: async (url) => {
      throw unauthorized(`keyId ${url.slice(0, 100)} is not a DID URL: keystores are controlled by DIDs`);
    },
  });
}
