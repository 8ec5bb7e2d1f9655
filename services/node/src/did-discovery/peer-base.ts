import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { permanent } from '@anchor/common/errors';
import { addressRefusal, classifyAddress, type FetchPolicy } from '@anchor/common/httpsig';

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

/**
 * A hint is anyone's to write, and resolution is open: without this check any client could make the node
 * call addresses of its own network. The peer's host must resolve to addresses the node's key-fetch policy
 * allows (public ones; loopback for a local federation; `--allowed-peer-networks`; anything in dev mode), as for the keyId of a
 * signed request. The check is made before the node connects (a host rebinding its name in between is
 * not caught here; the key fetch's guard checks at connect time).
 */
export async function checkPeer(url: string, policy: FetchPolicy): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map(({ address }) => address);
  } catch (error) {
    throw permanent(`${host} does not resolve: ${(error as Error).message}`);
  }
  for (const address of addresses) {
    const refusal = addressRefusal(policy, address);
    if (refusal !== undefined) throw permanent(`${host} resolves to ${address}, ${refusal}: not asked`);
  }
}
