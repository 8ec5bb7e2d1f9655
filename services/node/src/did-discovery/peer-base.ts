import { classifyAddress } from '@anchor/common/httpsig';
import { isIP } from 'node:net';

/**
 * The base URL of the node a DID's https hint or anchor origin names. The hint says https; plain http is
 * used in dev mode (docker-compose federations), and for a loopback host when this node is itself served
 * over plain http on loopback (a local federation), as the node's did:web and key fetches do.
 */
export function hintedBase(domain: string, plainHttp: 'always' | 'loopback' | 'never'): string {
  const host = new URL(`https://${domain}`).hostname.replace(/^\[|\]$/g, '');
  const http = plainHttp === 'always' || (plainHttp === 'loopback' && isLoopback(host));
  return `${http ? 'http' : 'https'}://${domain}`;
}

/** Which plain-http rule applies to this node (see `hintedBase`). */
export function plainHttpPolicy(externalEndpoint: string, devMode: boolean): 'always' | 'loopback' | 'never' {
  if (devMode) return 'always';
  const own = new URL(externalEndpoint);
  return own.protocol === 'http:' && isLoopback(own.hostname.replace(/^\[|\]$/g, '')) ? 'loopback' : 'never';
}

/**
 * The base URL of an anchor origin: an http(s) URL (a service id or endpoint) gives its origin, a
 * `did:web:<host>[:path]` its https host; anything else (ipns:, ...) names no node to ask.
 */
export function anchorOriginBase(anchorOrigin: string, plainHttp: 'always' | 'loopback' | 'never'): string | undefined {
  if (anchorOrigin.startsWith('did:web:')) {
    const host = anchorOrigin.slice('did:web:'.length).split(':')[0];
    return host ? hintedBase(decodeURIComponent(host), plainHttp) : undefined;
  }
  try {
    const url = new URL(anchorOrigin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || (isIP(host) !== 0 && classifyAddress(host) === 'loopback');
}
