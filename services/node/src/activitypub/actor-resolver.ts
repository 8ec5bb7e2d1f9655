import type { DidResolverRegistry } from '@anchor/common/did';
import { errorMessage, permanent } from '@anchor/common/errors';
import type { HttpClient } from '@anchor/common/http-client';
import { TtlCache } from '@anchor/common/httpsig';
import { findJrdLink, parseJrd, type Jrd } from '@anchor/common/webfinger';
import { ACTIVITY_MEDIA_TYPE } from './vocabulary.js';

/** What the federation needs of a remote service actor. */
export interface RemoteActor {
  id: string;
  inbox: string;
  outbox?: string;
  followers?: string;
  document: Record<string, unknown>;
}

export interface ActorResolverOptions {
  httpClient: HttpClient;
  didResolver: DidResolverRegistry;
  /** `--apclient-cache-expiration`: how long actors and host-meta documents are reused. */
  cacheTtlMs: number;
  /** `--enable-dev-mode`: plain http to hosts other than loopback. */
  devMode: boolean;
}

const HOST_META_PATH = '/.well-known/host-meta.json';
const ACTIVITY_JSON = 'application/activity+json';
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
/** Pages of a remote collection read when expanding it into recipients. */
const MAX_COLLECTION_PAGES = 20;

/**
 * Finds remote services (orb.md §3.4 "Actor/public-key fetches", "Recipient resolution"): a host's service
 * through its host-meta (`/.well-known/host-meta.json`, the link of type application/activity+json), an
 * actor document by its IRI (a did:web service through its DID document's LinkedDomains endpoint), and the
 * services behind a collection IRI. Every request goes through the node's signed HTTP client; answers are
 * cached for `--apclient-cache-expiration` (failures are not cached). Plain http is used on loopback, and
 * elsewhere only in dev mode: production federations speak https.
 */
export class ActorResolver {
  private readonly actors: TtlCache<Promise<RemoteActor>>;
  private readonly hostMetas: TtlCache<Promise<string>>;

  constructor(private readonly options: ActorResolverOptions) {
    this.actors = new TtlCache(10_000);
    this.hostMetas = new TtlCache(1_000);
  }

  /** The actor whose id is `iri` (a service URL or a did:web DID). */
  actor(iri: string): Promise<RemoteActor> {
    return this.cached(this.actors, iri, () => this.fetchActor(iri));
  }

  /** Forgets a cached actor (e.g. its inbox moved). */
  forget(iri: string): void {
    this.actors.delete(iri);
  }

  /**
   * The service an anchor origin names (orb.md §2.4 step 3): a DID or a service URL as is, a bare origin
   * (`https://host`) through the host's host-meta.
   */
  async serviceOfOrigin(origin: string): Promise<string> {
    if (origin.startsWith('did:')) return origin;
    const url = this.checkedUrl(origin);
    if (url.pathname !== '/' && url.pathname !== '')
      return (await this.actor(`${url.origin}${url.pathname.replace(/\/+$/, '')}`)).id;
    return (await this.actor(await this.hostService(url.origin))).id;
  }

  /**
   * The services a recipient IRI stands for: a service itself, or the members of a remote collection
   * (read page by page). Anything else is a permanent error.
   */
  async recipients(iri: string): Promise<RemoteActor[]> {
    const known = this.actors.get(iri);
    if (known || iri.startsWith('did:')) return [await (known ?? this.actor(iri))];
    const document = await this.getJson(iri);
    if (typeof document.inbox === 'string') return [await this.actor(iri)];
    const members = await this.collectionMembers(document, iri);
    if (members === undefined) throw permanent(`${iri} is neither a service nor a collection`);
    const actors: RemoteActor[] = [];
    for (const member of members) actors.push(await this.actor(member));
    return actors;
  }

  /** GET a JSON document with the ActivityStreams Accept header (signed, as every outbound request). */
  async getJson(url: string): Promise<Record<string, unknown>> {
    this.checkedUrl(url);
    const { data } = await this.options.httpClient.get<unknown>(url, {
      headers: { accept: `${ACTIVITY_MEDIA_TYPE}, application/json` },
    });
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw permanent(`GET ${url} did not return a JSON object`);
    return data as Record<string, unknown>;
  }

  /** Refuses URLs the node must not fetch: not http(s), or plain http beyond loopback outside dev mode. */
  checkedUrl(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw permanent(`${JSON.stringify(text)} is not a URL`);
    }
    if (url.protocol === 'https:') return url;
    if (url.protocol !== 'http:') throw permanent(`${text}: only http(s) services can be reached`);
    if (!this.options.devMode && !LOOPBACK.test(url.hostname)) {
      throw permanent(`${text}: plain http beyond loopback needs --enable-dev-mode (use https in production)`);
    }
    return url;
  }

  private async fetchActor(iri: string): Promise<RemoteActor> {
    const location = iri.startsWith('did:web:') ? await this.didServiceEndpoint(iri) : iri;
    const document = await this.getJson(location);
    if (document.id !== iri)
      throw permanent(`the actor document at ${location} has id ${JSON.stringify(document.id)}, not ${iri}`);
    const inbox = document.inbox;
    if (typeof inbox !== 'string') throw permanent(`the actor ${iri} has no inbox`);
    this.checkedUrl(inbox);
    const actor: RemoteActor = { id: iri, inbox, document };
    if (typeof document.outbox === 'string') actor.outbox = document.outbox;
    if (typeof document.followers === 'string') actor.followers = document.followers;
    return actor;
  }

  /**
   * A did:web service (`did:web:host:services:name`) publishes its base URL as a LinkedDomains service in
   * its DID document; that host's host-meta names the service endpoint.
   */
  private async didServiceEndpoint(did: string): Promise<string> {
    const { didDocument } = await this.options.didResolver.resolve(did);
    const services = Array.isArray(didDocument.service) ? didDocument.service : [];
    const linked = services.find((service) => ([] as unknown[]).concat(service.type).includes('LinkedDomains'));
    const endpoint = linked?.serviceEndpoint;
    const base =
      typeof endpoint === 'string'
        ? endpoint
        : Array.isArray((endpoint as { origins?: unknown } | undefined)?.origins)
          ? (endpoint as { origins: unknown[] }).origins[0]
          : undefined;
    if (typeof base !== 'string') throw permanent(`the DID document of ${did} has no LinkedDomains service`);
    return this.hostService(this.checkedUrl(base).origin);
  }

  /** The application/activity+json link of a host's host-meta. */
  private hostService(origin: string): Promise<string> {
    return this.cached(this.hostMetas, origin, async () => {
      const { data } = await this.options.httpClient.get<unknown>(`${origin}${HOST_META_PATH}`, {
        headers: { accept: 'application/json' },
      });
      let jrd: Jrd;
      try {
        jrd = parseJrd(data);
      } catch (error) {
        throw permanent(`the host-meta of ${origin} is not a JRD: ${errorMessage(error)}`);
      }
      const href = findJrdLink(jrd, 'self', ACTIVITY_JSON)?.href;
      if (typeof href !== 'string') throw permanent(`the host-meta of ${origin} names no ${ACTIVITY_JSON} service`);
      this.checkedUrl(href);
      return href;
    });
  }

  private async collectionMembers(document: Record<string, unknown>, iri: string): Promise<string[] | undefined> {
    const type = document.type;
    if (
      type !== 'Collection' &&
      type !== 'OrderedCollection' &&
      type !== 'CollectionPage' &&
      type !== 'OrderedCollectionPage'
    )
      return undefined;
    const members: string[] = [];
    const take = (page: Record<string, unknown>): void => {
      const items = page.items ?? page.orderedItems;
      if (Array.isArray(items)) for (const item of items) if (typeof item === 'string') members.push(item);
    };
    take(document);
    let next =
      typeof document.first === 'string'
        ? document.first
        : typeof document.next === 'string'
          ? document.next
          : undefined;
    for (let pages = 0; next !== undefined && pages < MAX_COLLECTION_PAGES; pages++) {
      const page = await this.getJson(next);
      take(page);
      next = typeof page.next === 'string' && page.next !== next ? page.next : undefined;
    }
    if (next !== undefined) throw permanent(`the collection ${iri} has more than ${MAX_COLLECTION_PAGES} pages`);
    return members;
  }

  private cached<T>(cache: TtlCache<Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit) return hit;
    const loading = load();
    cache.set(key, loading, this.options.cacheTtlMs);
    loading.catch(() => cache.delete(key));
    return loading;
  }
}
