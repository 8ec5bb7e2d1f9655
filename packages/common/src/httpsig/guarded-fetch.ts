/**
 * A GET made on behalf of anyone, made safe: the key fetch of a signed request (any signed POST to an inbox
 * makes the verifier GET the URL its `keyId` names before anything is known about the sender) and the did:web
 * documents of DIDs a client names (`guardedDidWebFetch`). Without limits a stranger could make a service
 * probe its private network or a cloud metadata address ("blind SSRF").
 *
 * The guard (outside development):
 * - https only (plain http only where the policy allows it: in development, or to loopback peers of a node
 *   whose own endpoint is loopback);
 * - the host's addresses are checked after DNS resolution, at connect time (the lookup the socket uses is the
 *   checked one, so a second resolution cannot swap in another address): loopback, private, link-local,
 *   CGNAT, multicast, unspecified and reserved ranges are refused unless the policy allows the class or lists
 *   the address's network (`--allowed-peer-networks`);
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked like the first;
 * - a per-host budget of fetches per window, and a per-host negative cache after a network-level failure:
 *   a flood of forged requests costs a bounded number of outbound connections;
 * - a response size limit and a total time limit.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AppError, badRequest, permanent, transient } from '../errors/index.js';
import { withBundledRoots } from '../http-client/ca-certificates.js';
import type { FetchJson } from './fetch-json.js';
import { peerNetworkList } from './peer-networks.js';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved';

export interface FetchPolicy {
  /** Plain http: `never` (default), `non-public` (only to hosts whose addresses are all of an allowed non-public class), `always`. */
  allowHttp?: 'never' | 'non-public' | 'always';
  /** Address classes allowed besides public ones (default none). */
  allowAddresses?: readonly Exclude<AddressClass, 'public'>[];
  /**
   * Networks (CIDRs or addresses) whose addresses are allowed whatever their class, plain http included: the
   * operator's own federation network (`--allowed-peer-networks`, `parsePeerNetwork`).
   */
  allowNetworks?: readonly string[];
}

export interface GuardedFetchOptions {
  policy?: FetchPolicy;
  /** Larger documents are refused. Default 256 KiB. */
  maxBytes?: number;
  /** Whole fetch, redirects included. Default 5 s. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** Fetches per host per window. Default 20 per 10 s. */
  hostBudget?: { fetches: number; windowMs: number };
  /** How long a host that failed at the network level (refused, unreachable, timed out, refused address) is not tried again. Default 30 s. */
  hostFailureTtlMs?: number;
  /** CA certificates trusted besides Node's bundled roots (`--tls-cacerts`). */
  ca?: ReadonlyArray<string | Buffer>;
  /** What is fetched, for refusal messages (default `key fetches`). */
  purpose?: string;
  /** Tests: the resolver (default `dns.lookup`). */
  lookup?: typeof dnsLookup;
  now?: () => number;
}

const RANGES: ReadonlyArray<[Exclude<AddressClass, 'public'>, string, number, 'ipv4' | 'ipv6']> = [
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['reserved', '0.0.0.0', 8, 'ipv4'],
  ['reserved', '100.64.0.0', 10, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['reserved', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['reserved', '::', 128, 'ipv6'],
  ['reserved', '64:ff9b::', 96, 'ipv6'],
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['reserved', 'ff00::', 8, 'ipv6'],
];

const BLOCKS = new Map<Exclude<AddressClass, 'public'>, BlockList>();
for (const [kind, network, prefix, family] of RANGES) {
  let list = BLOCKS.get(kind);
  if (!list) BLOCKS.set(kind, (list = new BlockList()));
  list.addSubnet(network, prefix, family);
}

/** Which class an IP address belongs to (IPv4-mapped IPv6 addresses are judged by their IPv4 address). */
export function classifyAddress(address: string): AddressClass {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? (mapped[1] as string) : address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of BLOCKS) if (list.check(ip, family)) return kind;
  return 'public';
}

/**
 * A refusal by policy: the URL came from the request, so it is the request that is bad (400; never retried,
 * cached as any permanent failure).
 */
const refused = (message: string): AppError => badRequest(message, { retryable: false });

class HostLimits {
  private readonly fetches = new Map<string, number[]>();
  private readonly failures = new Map<string, { until: number; reason: string; refusal: boolean }>();

  constructor(
    private readonly budget: { fetches: number; windowMs: number },
    private readonly failureTtlMs: number,
    private readonly now: () => number,
    private readonly purpose: string,
  ) {}

  admit(host: string): void {
    const now = this.now();
    const failure = this.failures.get(host);
    // A host refused by policy stays refused (400), not "failed recently" (503).
    if (failure && failure.until > now && failure.refusal) throw refused(failure.reason);
    if (failure && failure.until > now)
      throw transient(
        `${host} failed recently (${failure.reason}); not fetched again before ${new Date(failure.until).toISOString()}`,
      );
    if (failure) this.failures.delete(host);
    const recent = (this.fetches.get(host) ?? []).filter((at) => at > now - this.budget.windowMs);
    if (recent.length >= this.budget.fetches) {
      this.fetches.set(host, recent);
      throw transient(
        `too many ${this.purpose} from ${host}: at most ${this.budget.fetches} per ${this.budget.windowMs} ms`,
      );
    }
    recent.push(now);
    this.fetches.set(host, recent);
    if (this.fetches.size > 10_000) this.prune(now);
  }

  failed(host: string, reason: string, refusal = false): void {
    this.failures.set(host, { until: this.now() + this.failureTtlMs, reason, refusal });
  }

  private prune(now: number): void {
    for (const [host, times] of this.fetches)
      if (times.every((at) => at <= now - this.budget.windowMs)) this.fetches.delete(host);
    for (const [host, failure] of this.failures) if (failure.until <= now) this.failures.delete(host);
  }
}

/**
 * The peer's answer: 2xx bodies read within the size limit; any other status with an empty text (3xx only
 * when `redirects: 'manual'`; otherwise redirects are followed, each hop checked like the first).
 */
export type GuardedFetch = (
  url: string,
  options: { accept: string; signal: AbortSignal; redirects?: 'follow' | 'manual' },
) => Promise<{ status: number; url: string; text: string }>;

/**
 * Where a service's own GETs on behalf of its clients (key fetches, did:web documents) may go: anywhere in
 * dev mode (compose networks are private and plain http); otherwise https to public addresses only, and
 * loopback (over http too) when the service's own endpoint is loopback: a local federation, whose peers are
 * on loopback as well. A wildcard listener without an external URL is not loopback. Outside dev mode the
 * operator's `--allowed-peer-networks` are allowed besides (a federation on a private network).
 */
export function peerFetchPolicy(options: {
  devMode: boolean;
  /** The service's external URL. */
  ownEndpoint?: string | undefined;
  /** Without an external URL: the host the service listens on. */
  listenHost?: string | undefined;
  /** `--allowed-peer-networks`. */
  allowedPeerNetworks?: readonly string[] | undefined;
}): FetchPolicy {
  if (options.devMode)
    return { allowHttp: 'always', allowAddresses: ['loopback', 'private', 'link-local', 'reserved'] };
  const networks: FetchPolicy =
    options.allowedPeerNetworks !== undefined && options.allowedPeerNetworks.length > 0
      ? { allowNetworks: [...options.allowedPeerNetworks] }
      : {};
  let host = options.listenHost?.replace(/^\[|\]$/g, '') ?? '';
  if (options.ownEndpoint !== undefined) {
    try {
      host = new URL(options.ownEndpoint).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return networks;
    }
  }
  const ownIsLoopback = host === 'localhost' || (isIP(host) !== 0 && classifyAddress(host) === 'loopback');
  return ownIsLoopback ? { allowHttp: 'non-public', allowAddresses: ['loopback'], ...networks } : networks;
}

/**
 * Why the policy refuses an address (`undefined`: allowed), for checks made before connecting (a DID hint's
 * host); the guarded fetch applies the same rule at connect time.
 */
export function addressRefusal(policy: FetchPolicy, address: string): string | undefined {
  return policyChecks(policy, '').addressRefusal(address);
}

/** The `FetchJson` the signature verifier uses in production (see the module comment). */
export function createGuardedFetchJson(options: GuardedFetchOptions = {}): FetchJson {
  const fetch = createGuardedFetch(options);
  return async (raw, { accept, signal }) => {
    const { status, url, text } = await fetch(raw, { accept, signal });
    if (status < 200 || status >= 300) {
      const message = `GET ${url} answered ${status}`;
      throw status >= 500 || status === 408 || status === 429 ? transient(message) : permanent(message);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw permanent(`GET ${url} did not return JSON`);
    }
  };
}

/** The policy's checks of a URL and of each address its host has. */
function policyChecks(policy: FetchPolicy | undefined, purpose: string) {
  const allowed = new Set<AddressClass>(['public', ...(policy?.allowAddresses ?? [])]);
  const allowHttp = policy?.allowHttp ?? 'never';
  const networks = policy?.allowNetworks ?? [];
  const listed = peerNetworkList(networks);

  const addressRefusal = (address: string): string | undefined => {
    if (listed(address)) return undefined;
    const kind = classifyAddress(address);
    if (allowed.has(kind)) return undefined;
    return `a ${kind} address`;
  };

  const checkAddress = (host: string, address: string, plainHttp: boolean): void => {
    const refusal = addressRefusal(address);
    if (refusal !== undefined) throw refused(`${host} resolves to ${address}, ${refusal}: refused`);
    if (!plainHttp || listed(address)) return;
    const kind = classifyAddress(address);
    if (allowHttp === 'never' || (kind === 'public' && allowHttp !== 'always'))
      throw refused(`plain http to ${host} (${address}, a ${kind} address) is refused for ${purpose} (https only)`);
  };

  const checkUrl = (raw: string): URL => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw refused(`not a URL: ${JSON.stringify(raw.slice(0, 100))}`);
    }
    // With listed networks an http URL goes on to the address check, which allows it only to those networks.
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowHttp !== 'never' || networks.length > 0)))
      throw refused(`${url.protocol.slice(0, -1)} URLs are refused for ${purpose} (https only): ${url.origin}`);
    if (url.username || url.password) throw refused(`URLs with credentials are refused for ${purpose}`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) checkAddress(host, host, url.protocol === 'http:');
    return url;
  };

  return { addressRefusal, checkAddress, checkUrl };
}

/**
 * The guard's checks alone, for a peer named now and called later (a keystore's did:web controller): a 400
 * when the policy refuses the URL or any address its host resolves to now (a 503 when it does not resolve).
 * Nothing is connected to; the fetch made later checks again at connect time.
 */
export async function checkPeerUrl(
  raw: string,
  options: Pick<GuardedFetchOptions, 'policy' | 'purpose' | 'lookup'> = {},
): Promise<void> {
  const { checkAddress, checkUrl } = policyChecks(options.policy, options.purpose ?? 'key fetches');
  const url = checkUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return;
  const resolve = options.lookup ?? dnsLookup;
  const addresses = await new Promise<LookupAddress[]>((done, fail) =>
    resolve(host, { all: true }, (error, found: LookupAddress[]) => (error ? fail(error) : done(found))),
  ).catch((error: Error) => {
    throw transient(`${host} does not resolve: ${error.message}`, error);
  });
  for (const { address } of addresses) checkAddress(host, address, url.protocol === 'http:');
}

/** The guarded GET (see the module comment), answering the peer's status and text. */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const purpose = options.purpose ?? 'key fetches';
  const { checkAddress, checkUrl } = policyChecks(options.policy, purpose);
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const resolve = options.lookup ?? dnsLookup;
  const ca = options.ca !== undefined && options.ca.length > 0 ? withBundledRoots(options.ca) : undefined;
  const limits = new HostLimits(
    options.hostBudget ?? { fetches: 20, windowMs: 10_000 },
    options.hostFailureTtlMs ?? 30_000,
    options.now ?? Date.now,
    purpose,
  );

  // The socket connects to exactly the addresses checked here.
  const guardedLookup =
    (plainHttp: boolean): LookupFunction =>
    (hostname, lookupOptions, callback) => {
      resolve(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        try {
          for (const { address } of addresses) checkAddress(hostname, address, plainHttp);
        } catch (refusal) {
          return callback(refusal as Error, '', 0);
        }
        if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0];
        if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
        callback(null, first.address, first.family);
      });
    };

  const getOnce = (url: URL, accept: string, signal: AbortSignal): Promise<IncomingMessage> =>
    new Promise((resolveResponse, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: 'GET',
        headers: { accept },
        lookup: guardedLookup(url.protocol === 'http:'),
        signal,
        ...(ca !== undefined && url.protocol === 'https:' ? { ca } : {}),
      });
      request.once('response', resolveResponse);
      request.once('error', reject);
      request.end();
    });

  return async (raw, { accept, signal, redirects = 'follow' }) => {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    let url = checkUrl(raw);
    for (let hop = 0; ; hop++) {
      limits.admit(url.host);
      let response: IncomingMessage;
      try {
        response = await getOnce(url, accept, deadline);
      } catch (error) {
        if (error instanceof AppError) {
          limits.failed(url.host, error.message, error.code === 'bad_request');
          throw error;
        }
        const reason = deadline.aborted ? 'timed out' : (error as Error).message;
        limits.failed(url.host, reason);
        throw transient(`GET ${url.href} failed: ${reason}`, error);
      }
      const status = response.statusCode ?? 0;
      if (redirects === 'follow' && status >= 300 && status < 400 && response.headers.location) {
        response.resume();
        if (hop >= maxRedirects) throw refused(`GET ${raw}: more than ${maxRedirects} redirects`);
        url = checkUrl(new URL(response.headers.location, url).href);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        return { status, url: url.href, text: '' };
      }
      return { status, url: url.href, text: await readLimited(response, maxBytes, url.href, deadline) };
    }
  };
}

async function readLimited(
  response: IncomingMessage,
  maxBytes: number,
  where: string,
  signal: AbortSignal,
): Promise<string> {
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) {
    response.destroy();
    throw permanent(`GET ${where}: document larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        response.destroy();
        throw permanent(`GET ${where}: document larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw transient(
      `GET ${where}: reading the body failed: ${signal.aborted ? 'timed out' : (error as Error).message}`,
      error,
    );
  }
  return Buffer.concat(chunks).toString('utf8');
}
