import { errorMessage, permanent } from '@anchor/common/errors';
import { peerStatusOf } from '@anchor/common/http-client';
import type { Logger } from '@anchor/common/log';
import type { Store, StoreProvider } from '@anchor/common/storage';
import { CAS_MEDIA, CasStore } from '../cas/cas-store.js';
import type { AnchorObserver } from '../observer/anchor-observer.js';
import { EXPORT_MAX_COUNT } from './operation-export.js';

export const EXPORT_SYNC_STORE = 'export-sync';

/** How far this node has read a followee's export: the cursor after the last page whose anchors are all committed. */
export interface ExportPosition {
  cursor: string;
  updatedAt: number;
}

interface PageAnchor {
  anchor: string;
  hashlink: string;
  linkset: { linkset?: Array<{ author?: Array<{ href?: string }> }> };
  files?: Array<{ hash: string; content: string }>;
}

interface Page {
  anchors: PageAnchor[];
  cursor: string;
  more: boolean;
}

/** A peer without an export (an Orb node, an older version) is asked again after this long. */
const NO_EXPORT_RETRY_MS = 3_600_000;

/**
 * Catch-up through a followee's export (`GET /sidetree/v1/export`), before its outbox is read: a page brings up
 * to 1,000 operations with their anchors' linksets and batch files in one signed GET, where the outbox costs a
 * GET per 50 activities and each anchor then three rounds of CAS fetches. So a new follower's catch-up is bound
 * by verifying and committing, not by round trips. Each anchor the followee authored goes through the observer
 * exactly as an announced one does (linkset hash, every proof, the files checked against their hashes and
 * assembled on the worker thread, parents first); so is each anchor of this node's own that it no longer holds (its database
 * restored from an older backup: orb issue 1030). Anchors of other origins in the followee's export are left to
 * the usual paths (they are fetched as parents when an anchor of the followee needs them). The next page is
 * fetched while this one is verified and committed. The position is kept per followee and moves only past
 * pages whose anchors are all committed; the outbox read that follows finds those anchors processed.
 */
export class ExportCatchUp {
  private readonly noExportUntil = new Map<string, number>();

  private constructor(
    private readonly deps: {
      positions: Store<ExportPosition>;
      observer: AnchorObserver;
      cas: CasStore;
      getJson: (url: string) => Promise<Record<string, unknown>>;
      /** Told before an anchor of the followee is processed (the federation records it, to acknowledge it). */
      expecting?: (anchor: { anchorHash: string; hashlink: string }, service: string, via: string) => Promise<void>;
      /** This node's service IRI: its own anchors a followee holds and it does not (after a restore) are taken too. */
      self?: string;
      log: Logger;
    },
  ) {}

  static async open(
    provider: StoreProvider,
    deps: {
      observer: AnchorObserver;
      cas: CasStore;
      getJson: (url: string) => Promise<Record<string, unknown>>;
      expecting?: (anchor: { anchorHash: string; hashlink: string }, service: string, via: string) => Promise<void>;
      self?: string;
      log: Logger;
    },
  ): Promise<ExportCatchUp> {
    return new ExportCatchUp({ ...deps, positions: await provider.open<ExportPosition>(EXPORT_SYNC_STORE) });
  }

  /**
   * Reads `service`'s export from where this node left it, at `base` (the origin serving its outbox); resolves
   * with the operations committed. A peer that has no export (404) is skipped for an hour; any other failure
   * ends the run (the next run resumes at the saved position).
   */
  async run(service: string, base: string, maxPages = 10_000): Promise<number> {
    if ((this.noExportUntil.get(service) ?? 0) > Date.now()) return 0;
    let cursor = (await this.deps.positions.get(service))?.cursor ?? '';
    const url = (after: string) =>
      `${base.replace(/\/+$/, '')}/sidetree/v1/export?count=${EXPORT_MAX_COUNT}&after=${encodeURIComponent(after)}`;
    let committed = 0;
    let next: Promise<Page> | undefined = this.fetchPage(url(cursor));
    for (let pages = 0; next !== undefined && pages < maxPages; pages++) {
      let page: Page;
      try {
        page = await next;
      } catch (error) {
        if (peerStatusOf(error) === 404) {
          this.noExportUntil.set(service, Date.now() + NO_EXPORT_RETRY_MS);
          return committed;
        }
        throw error;
      }
      // The next page travels while this one is verified and committed.
      next = page.more ? this.fetchPage(url(page.cursor)) : undefined;
      next?.catch(() => undefined);
      committed += await this.takePage(service, base, page.anchors);
      if (page.cursor !== cursor) {
        cursor = page.cursor;
        await this.deps.positions.put(service, { cursor, updatedAt: Date.now() });
      }
    }
    return committed;
  }

  private async fetchPage(url: string): Promise<Page> {
    const page = await this.deps.getJson(url);
    if (!Array.isArray(page.anchors) || typeof page.cursor !== 'string' || typeof page.more !== 'boolean')
      throw permanent(`GET ${url} is not an export page`);
    return page as unknown as Page;
  }

  /**
   * The page's anchors of the followee (and this node's own it lacks) in the page's order: their files in one
   * write, their intakes in one round, then the observer verifies them several at a time and commits them
   * in groups (`AnchorObserver.processInOrder`).
   */
  private async takePage(service: string, base: string, anchors: readonly PageAnchor[]): Promise<number> {
    const taken: Array<{ anchor: PageAnchor; own: boolean }> = [];
    for (const anchor of anchors) {
      if (typeof anchor?.anchor !== 'string' || typeof anchor.hashlink !== 'string') continue;
      const author = anchor.linkset?.linkset?.[0]?.author?.[0]?.href;
      // This node's own anchors come back this way after its database was restored from an older backup.
      const own = author !== undefined && author === this.deps.self;
      if (author !== service && !own) continue;
      taken.push({ anchor, own });
    }
    const known = await Promise.all(taken.map(({ anchor }) => this.deps.observer.isProcessed(anchor.anchor)));
    const todo = taken.filter((_, at) => known[at] === undefined);
    if (todo.length === 0) return 0;
    // Only files that hash as named are kept; the observer finds any other missing and fetches it.
    const files = todo
      .flatMap(({ anchor }) => (Array.isArray(anchor.files) ? anchor.files : []))
      .map((file) => ({ content: Buffer.from(String(file.content), 'base64'), hash: file.hash }))
      .filter((file) => CasStore.hashOf(file.content) === file.hash)
      .map((file) => ({ content: file.content, mediaType: CAS_MEDIA.batchFile }));
    if (files.length > 0) await this.deps.cas.writeAll(files);
    const expecting = this.deps.expecting;
    if (expecting !== undefined)
      await Promise.all(
        todo
          .filter(({ own }) => !own)
          .map(({ anchor }) =>
            expecting({ anchorHash: anchor.anchor, hashlink: anchor.hashlink }, service, `${base}/sidetree/v1/export`),
          ),
      );
    const outcomes = await this.deps.observer.processInOrder(
      todo.map(({ anchor, own }) => ({
        hashlink: anchor.hashlink,
        linkset: anchor.linkset,
        ...(own ? {} : { attributedTo: service }),
        sources: [base],
      })),
      async (event, error) => {
        // Refused for good: recorded as the observer records any anchor it refuses, and the catch-up goes on.
        this.deps.log.warn('an exported anchor was refused', {
          anchor: event.hashlink,
          service,
          err: errorMessage(error),
        });
        await this.deps.observer.reject({ hashlink: event.hashlink, attributedTo: service }, errorMessage(error));
      },
    );
    const records = await Promise.all(
      todo.map(({ anchor }, at) =>
        outcomes[at] === 'processed' ? this.deps.observer.isProcessed(anchor.anchor) : undefined,
      ),
    );
    return records.reduce((sum, record) => sum + (record?.operationCount ?? 0), 0);
  }
}
