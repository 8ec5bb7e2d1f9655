import { badRequest, notFound } from '@anchor/common/errors';
import {
  answer,
  checkQuery,
  isAuthorized,
  requireAuthorization,
  signedBy,
  type Answer,
  type RouteRequest,
} from '@anchor/common/http';
import type { RefType } from './activity-refs.js';
import type { ActivityRef, ActivityStore } from './activity-store.js';
import { AS_CONTEXT, anchorHashOf, isPublic, type StoredActivity } from './vocabulary.js';

/** Media type of ActivityPub documents served by this node. */
export const AP_CONTENT_TYPE = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

export interface Paging {
  /** undefined: the collection itself; a number: that page (0-based). */
  page: number | undefined;
  /** The page after this cursor (a `next` link's), instead of a page number. */
  after?: string;
}

/** A cursor as `next` links carry it: the store's keyset position, base64url. */
const CURSOR = /^[A-Za-z0-9_-]{1,1024}$/;

/**
 * `?page=true[&page-num=N]` (orb.md §3.2) or `?page=true&after=<cursor>` (the `next` links: a keyset seek, so
 * a page deep in a large collection costs what the first does); anything malformed is a 400.
 */
export function pagingOf(query: URLSearchParams): Paging {
  // The kit has refused a repeated parameter on a request already; the rule holds for any other caller too.
  checkQuery(query.toString());
  const page = query.get('page') ?? undefined;
  const pageNum = query.get('page-num') ?? undefined;
  const after = query.get('after') ?? undefined;
  if (page !== undefined && page !== 'true' && page !== 'false')
    throw badRequest("query parameter page must be 'true' or 'false'");
  if (pageNum !== undefined && !/^\d{1,9}$/.test(pageNum))
    throw badRequest('query parameter page-num must be a non-negative integer');
  if (after !== undefined && !CURSOR.test(after))
    throw badRequest('query parameter after must be the cursor of a next link (base64url)');
  if (page !== 'true') {
    if (pageNum !== undefined) throw badRequest('page-num needs page=true');
    if (after !== undefined) throw badRequest('after needs page=true');
    return { page: undefined };
  }
  if (after !== undefined) {
    if (pageNum !== undefined) throw badRequest('page-num and after cannot be combined');
    return { page: undefined, after };
  }
  return { page: pageNum === undefined ? 0 : Number(pageNum) };
}

export interface CollectionSource {
  refType: RefType;
  /** undefined: the references of every object (all likes, all shares). */
  objectIri: string | undefined;
  /** Ordered collections list activities (or, for `liked`, IRIs); unordered ones list service IRIs. */
  ordered: boolean;
  /** What a page lists: the referenced IRIs, or the referenced activities in full. */
  items: 'iris' | 'activities';
}

/**
 * Collections and their pages (spec "Collection and collection page"): without paging parameters the
 * collection (`totalItems`, `first`, `last`); with `page=true` one page of `pageSize` items in the order
 * they were added, with `next` (a keyset cursor) where more follow, and `prev` on numbered pages. Pages are
 * index range scans from a seek; numbered pages past the first (the `last` link, older clients) skip.
 * Totals are the count records kept on write (`ActivityStore.size`), not counted per request.
 */
export class CollectionPages {
  constructor(
    private readonly store: ActivityStore,
    private readonly pageSize: number,
  ) {}

  async document(id: string, source: CollectionSource, paging: Paging): Promise<Record<string, unknown>> {
    const total = await this.store.size(source.refType, source.objectIri);
    const collectionType = source.ordered ? 'OrderedCollection' : 'Collection';
    if (paging.page === undefined && paging.after === undefined) {
      const last = Math.max(0, Math.ceil(total / this.pageSize) - 1);
      return {
        '@context': AS_CONTEXT,
        id,
        type: collectionType,
        totalItems: total,
        first: pageId(id, 0),
        last: pageId(id, last),
      };
    }
    const { refs, next } = await this.store.page(source.refType, source.objectIri, {
      offset: (paging.page ?? 0) * this.pageSize,
      ...(paging.after !== undefined ? { after: paging.after } : {}),
      limit: this.pageSize,
    });
    const items = source.items === 'iris' ? refs.map((ref) => ref.refIri) : await this.activities(refs);
    const document: Record<string, unknown> = {
      '@context': AS_CONTEXT,
      id: paging.after !== undefined ? cursorPageId(id, paging.after) : pageId(id, paging.page ?? 0),
      type: `${collectionType}Page`,
      partOf: id,
      totalItems: total,
      [source.ordered ? 'orderedItems' : 'items']: items,
    };
    if (next !== undefined) document.next = cursorPageId(id, next);
    if (paging.page !== undefined && paging.page > 0)
      document.prev = pageId(id, Math.min(paging.page - 1, Math.max(0, Math.ceil(total / this.pageSize) - 1)));
    return document;
  }

  private async activities(refs: ActivityRef[]): Promise<StoredActivity[]> {
    const found = await this.store.getMany(refs.map((ref) => ref.refIri));
    return found.filter((activity): activity is StoredActivity => activity !== undefined);
  }
}

/** `<collection>?page=true&after=<cursor>`: the page after the last item of the one that linked it. */
export function cursorPageId(id: string, after: string): string {
  return `${id}?page=true&after=${after}`;
}

/** `<collection>?page=true&page-num=N` (page 0 is also `first`). */
export function pageId(id: string, page: number): string {
  return page === 0 ? `${id}?page=true` : `${id}?page=true&page-num=${page}`;
}

export interface CollectionRouteDeps {
  store: ActivityStore;
  pages: CollectionPages;
  serviceId: string;
  serviceEndpoint: string;
}

/**
 * Read access (spec Authentication rule 6): collections to token holders and to signed followers and
 * witnesses; the outbox in full to token holders and to signed services this node follows or that witness
 * for it, its public activities to anyone.
 */
export function readers(deps: { store: ActivityStore; serviceId: string }) {
  const member =
    (...types: RefType[]) =>
    async (actor: string) => {
      for (const type of types) if (await deps.store.hasRef(type, deps.serviceId, actor)) return true;
      return false;
    };
  return {
    collection: signedBy(member('follower', 'witness')),
    outbox: signedBy(member('following', 'witness')),
  };
}

/** Registers the GET handlers of every collection and of single activities. */
export function collectionHandlers(deps: CollectionRouteDeps) {
  const { store, pages, serviceId, serviceEndpoint } = deps;
  const can = readers(deps);
  const send = (document: unknown): Answer => answer({ json: document, type: AP_CONTENT_TYPE });

  const relationship = (refType: RefType, name: string) => async (req: RouteRequest) => {
    await requireAuthorization(req, can.collection);
    return send(
      await pages.document(
        `${serviceEndpoint}/${name}`,
        { refType, objectIri: serviceId, ordered: false, items: 'iris' },
        pagingOf(req.query),
      ),
    );
  };
  const perAnchor = (refType: 'like' | 'share', name: string) => async (req: RouteRequest) => {
    await requireAuthorization(req, can.collection);
    const anchor = req.params['anchor'];
    let objectIri: string | undefined;
    if (anchor !== undefined) {
      try {
        objectIri = anchorHashOf(anchor);
      } catch {
        throw badRequest(`${anchor} is not an anchor hashlink or hash`);
      }
    }
    const id =
      anchor === undefined ? `${serviceEndpoint}/${name}` : `${serviceEndpoint}/${name}/${encodeURIComponent(anchor)}`;
    return send(
      await pages.document(id, { refType, objectIri, ordered: true, items: 'activities' }, pagingOf(req.query)),
    );
  };

  return {
    followers: relationship('follower', 'followers'),
    following: relationship('following', 'following'),
    witnesses: relationship('witness', 'witnesses'),
    witnessing: relationship('witnessing', 'witnessing'),
    async liked(req: RouteRequest) {
      await requireAuthorization(req, can.collection);
      return send(
        await pages.document(
          `${serviceEndpoint}/liked`,
          { refType: 'liked', objectIri: serviceId, ordered: true, items: 'iris' },
          pagingOf(req.query),
        ),
      );
    },
    likes: perAnchor('like', 'likes'),
    shares: perAnchor('share', 'shares'),
    async inbox(req: RouteRequest) {
      await requireAuthorization(req, can.collection);
      return send(
        await pages.document(
          `${serviceEndpoint}/inbox`,
          { refType: 'inbox', objectIri: serviceId, ordered: true, items: 'activities' },
          pagingOf(req.query),
        ),
      );
    },
    /** The whole outbox to authorised readers; otherwise (never a 401) only what was addressed to the public. */
    async outbox(req: RouteRequest) {
      const refType = (await isAuthorized(req, can.outbox)) ? 'outbox' : 'public-outbox';
      return send(
        await pages.document(
          `${serviceEndpoint}/outbox`,
          { refType, objectIri: serviceId, ordered: true, items: 'activities' },
          pagingOf(req.query),
        ),
      );
    },
    async activity(req: RouteRequest) {
      const id = `${serviceEndpoint}/activities/${String(req.params['id'])}`;
      const activity = await store.get(id);
      if (!activity) throw notFound(`no activity ${id}`);
      if (!isPublic(activity)) await requireAuthorization(req, can.outbox);
      return send(activity);
    },
  };
}
