import {
  createHttpClient,
  peerStatusOf,
  readPeerHealth,
  type HttpClient,
  type PeerHealth,
} from '../http-client/index.js';
import { notFound } from '../errors/index.js';
import { CONTEXT_URLS } from '../jsonld/index.js';

/** The contexts of the activities posted to the outbox, and the role an Invite offers (orb.md §3.1). */
const ACTIVITY_CONTEXTS = [CONTEXT_URLS.activityStreams, CONTEXT_URLS.activityAnchorsV1];
const ANCHOR_WITNESS = 'https://w3id.org/activityanchors#AnchorWitness';

/** Who may follow the node (`follow`) or invite it to witness (`invite-witness`). */
export type AcceptListType = 'follow' | 'invite-witness';

/** One accept list as `GET /services/node/acceptlist` lists it. */
export interface AcceptListEntry {
  type: AcceptListType;
  url: string[];
}

/** One change of `POST /services/node/acceptlist`. */
export interface AcceptListUpdate {
  type: AcceptListType;
  add?: string[];
  remove?: string[];
}

export interface NodeAdminClientOptions {
  /** The node's base URL (its external endpoint), e.g. `http://127.0.0.1:8081`. */
  url: string;
  /** Bearer token sent with every request, for nodes whose token rules protect the admin endpoints. */
  adminToken?: string;
  /** Path of the service actor; `/services/<name>` when the node's service id is a did:web. */
  servicePath?: string;
  /** Default 10 s: the admin endpoints answer from the node's own store. */
  timeoutMs?: number;
  /** A node served over https with a private CA: the CA certificates (PEM) to trust besides Node's roots. */
  ca?: Array<string | Buffer>;
}

export type NodeHealth = PeerHealth;

/** An activity as a collection page lists it (the fields an administrator looks at). */
export interface AdminActivity extends Record<string, unknown> {
  id: string;
  type: string;
  actor: string;
  object?: unknown;
}

/** The unordered collections of service URIs a node keeps (spec "Federation endpoints"). */
export type ServiceCollection = 'followers' | 'following' | 'witnesses' | 'witnessing';

/**
 * An operator's client for one node, over its HTTP API only (spec "System endpoints" and "Federation
 * endpoints"): accept lists, Follow and Invite activities posted to the node's own outbox, the witness
 * policy, the transparency log, the relationship collections and health. It is what the local federation
 * wires nodes with, and what integration tests set a federation up with, so both exercise the same API a
 * deployment is administered through.
 */
export class NodeAdminClient {
  readonly url: string;
  readonly serviceEndpoint: string;
  private readonly http: HttpClient;
  private serviceIdPromise: Promise<string> | undefined;

  constructor(options: NodeAdminClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.serviceEndpoint = `${this.url}${options.servicePath ?? '/services/node'}`;
    const token = options.adminToken;
    this.http = createHttpClient({
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(token === undefined ? {} : { bearerToken: () => token }),
      ...(options.ca === undefined ? {} : { tls: { ca: options.ca } }),
    });
  }

  /** The node's service id (the `id` of its actor document): what others follow, invite and accept-list. */
  serviceId(): Promise<string> {
    this.serviceIdPromise ??= this.http.get<{ id?: unknown }>(this.serviceEndpoint).then(({ data }) => {
      if (typeof data?.id !== 'string') throw new Error(`${this.serviceEndpoint} answered an actor without an id`);
      return data.id;
    });
    // A failed lookup (node not up yet) must not be remembered.
    this.serviceIdPromise.catch(() => (this.serviceIdPromise = undefined));
    return this.serviceIdPromise;
  }

  async acceptLists(): Promise<AcceptListEntry[]> {
    return (await this.http.get<AcceptListEntry[]>(`${this.serviceEndpoint}/acceptlist`)).data;
  }

  /** Applies `[{type, add?, remove?}]` in order (idempotent) and returns the lists as they now are. */
  async updateAcceptLists(changes: AcceptListUpdate[]): Promise<AcceptListEntry[]> {
    return (
      await this.http.post<AcceptListEntry[]>(`${this.serviceEndpoint}/acceptlist`, changes, {
        headers: { 'content-type': 'application/ld+json' },
      })
    ).data;
  }

  /** Lets `services` follow this node (`follow`) or invite it to witness (`invite-witness`). */
  allow(type: AcceptListType, services: string[]): Promise<AcceptListEntry[]> {
    return this.updateAcceptLists([{ type, add: services }]);
  }

  disallow(type: AcceptListType, services: string[]): Promise<AcceptListEntry[]> {
    return this.updateAcceptLists([{ type, remove: services }]);
  }

  /**
   * Posts `Follow {object: service, to: service}` to this node's outbox; returns the activity id at once.
   * The node joins `following` when the other service's Accept arrives (see `waitUntilIn`).
   */
  follow(service: string): Promise<string> {
    return this.postToOutbox({ '@context': ACTIVITY_CONTEXTS, type: 'Follow', to: service, object: service });
  }

  /** Posts `Invite {object: AnchorWitness, target: service, to: service}`; `witnesses` gains it on Accept. */
  inviteWitness(service: string): Promise<string> {
    return this.postToOutbox({
      '@context': ACTIVITY_CONTEXTS,
      type: 'Invite',
      to: service,
      object: ANCHOR_WITNESS,
      target: service,
    });
  }

  /**
   * Posts `Undo` of this node's latest Follow of `service` (`Follow`) or Invite of it to witness (`Invite`):
   * the node leaves `following` / `witnesses` and tells the other service. Not found when there is none.
   */
  async undo(type: 'Follow' | 'Invite', service: string): Promise<string> {
    const undone = (await this.activities('outbox'))
      .filter(
        (activity) =>
          activity.type === type && iriOf(type === 'Follow' ? activity.object : activity['target']) === service,
      )
      .at(-1);
    if (undone === undefined) throw notFound(`${this.url} has posted no ${type} of ${service}`);
    return this.postToOutbox({ '@context': ACTIVITY_CONTEXTS, type: 'Undo', to: service, object: undone.id });
  }

  /**
   * The transparency logs the node monitors with `status` (`GET /log-monitor`): active (default), inactive, or
   * failed (each with its evidence). An empty list when none has that status.
   */
  async logMonitors(status: 'active' | 'inactive' | 'failed' = 'active'): Promise<Array<Record<string, unknown>>> {
    try {
      const { data } = await this.http.get<Record<string, unknown>>(`${this.url}/log-monitor?status=${status}`);
      const listed = data?.[status];
      return Array.isArray(listed) ? (listed as Array<Record<string, unknown>>) : [];
    } catch (error) {
      if (peerStatusOf(error) === 404) return [];
      throw error;
    }
  }

  /** Starts or stops monitoring logs (`POST /log-monitor`); activating a failed log starts it afresh. */
  async updateLogMonitors(change: { activate?: string[]; deactivate?: string[] }): Promise<void> {
    await this.http.post(`${this.url}/log-monitor`, change);
  }

  /** The anchor origins this node accepts anchors from (`GET /allowedorigins`). */
  async allowedOrigins(): Promise<string[]> {
    const { data } = await this.http.get<unknown>(`${this.url}/allowedorigins`);
    return Array.isArray(data) ? data.filter((item): item is string => typeof item === 'string') : [];
  }

  async updateAllowedOrigins(change: { add?: string[]; remove?: string[] }): Promise<string[]> {
    await this.http.post(`${this.url}/allowedorigins`, change);
    return this.allowedOrigins();
  }

  /** Posts any activity to this node's outbox (the administrator's way to act as the node); returns its id. */
  async postToOutbox(activity: Record<string, unknown>): Promise<string> {
    const { data } = await this.http.post<unknown>(`${this.serviceEndpoint}/outbox`, activity, {
      headers: { 'content-type': 'application/ld+json' },
    });
    if (typeof data !== 'string')
      throw new Error(`${this.serviceEndpoint}/outbox answered ${JSON.stringify(data)} instead of the new activity id`);
    return data;
  }

  /** Every service URI in one of the node's relationship collections, read page by page. */
  async collection(name: ServiceCollection): Promise<string[]> {
    return (await this.pages(name, 'items')).filter((item): item is string => typeof item === 'string');
  }

  /** Every activity in the node's inbox or outbox, oldest first (what an administrator may read). */
  async activities(name: 'inbox' | 'outbox'): Promise<AdminActivity[]> {
    return (await this.pages(name, 'orderedItems')).filter(
      (item): item is AdminActivity => typeof item === 'object' && item !== null,
    );
  }

  private async pages(name: string, member: 'items' | 'orderedItems'): Promise<unknown[]> {
    const items: unknown[] = [];
    let next: string | undefined = `${this.serviceEndpoint}/${name}?page=true`;
    while (next !== undefined) {
      const page: Record<string, unknown> = (await this.http.get<Record<string, unknown>>(next)).data;
      const listed = page[member];
      if (Array.isArray(listed)) items.push(...(listed as unknown[]));
      next = typeof page.next === 'string' ? page.next : undefined;
    }
    return items;
  }

  /**
   * Resolves once `service` is in the collection (e.g. `following` after a Follow was accepted); rejects
   * after `timeoutMs` (default 30 s) naming what is there instead.
   */
  async waitUntilIn(name: ServiceCollection, service: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const members = await this.collection(name);
      if (members.includes(service)) return;
      if (Date.now() >= deadline)
        throw new Error(
          `${service} is not in ${this.serviceEndpoint}/${name} after ${timeoutMs} ms (members: ${members.join(', ') || 'none'})`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The witness policy text, or undefined when none is set (the node's default applies). */
  async witnessPolicy(): Promise<string | undefined> {
    return this.optionalText(`${this.url}/policy`);
  }

  /** Sets the witness policy, e.g. `MinPercent(100,batch) AND MinPercent(50,system)`; '' restores the default. */
  async setWitnessPolicy(policy: string): Promise<string | undefined> {
    return nonEmpty((await this.http.request<string>(`${this.url}/policy`, textPost(policy))).data);
  }

  /** The transparency log this node uses as its local witness, or undefined. */
  async log(): Promise<string | undefined> {
    return this.optionalText(`${this.url}/log`);
  }

  /** Uses the log alias at `logUrl` (e.g. `http://127.0.0.1:8070/main`); '' stops using a log. */
  async setLog(logUrl: string): Promise<string | undefined> {
    return nonEmpty((await this.http.request<string>(`${this.url}/log`, textPost(logUrl))).data);
  }

  /** `GET /healthcheck`; a node that is not up yet (no answer) rejects with a retryable error. */
  async health(): Promise<NodeHealth> {
    return readPeerHealth(this.http, this.url);
  }

  close(): void {
    this.http.close();
  }

  private async optionalText(url: string): Promise<string | undefined> {
    try {
      return nonEmpty((await this.http.get<string>(url, { responseType: 'text' })).data);
    } catch (error) {
      if (peerStatusOf(error) === 404) return undefined;
      throw error;
    }
  }
}

function textPost(body: string) {
  return { method: 'POST', body, headers: { 'content-type': 'text/plain' }, responseType: 'text' as const };
}

function nonEmpty(text: string): string | undefined {
  return text === '' ? undefined : text;
}

/** An activity member that names a resource: its IRI, whether given as a string or as an object with an id. */
function iriOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string')
    return (value as { id: string }).id;
  return undefined;
}
