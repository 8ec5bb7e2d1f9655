import { errorMessage, permanent } from '@anchor/common/errors';
import { peerStatusOf } from '@anchor/common/http-client';
import type { Logger } from '@anchor/common/log';
import type { Store, StoreProvider } from '@anchor/common/storage';
import { CAS_MEDIA, CasStore } from '../cas/cas-store.js';
import type { AnchorObserver } from '../observer/anchor-observer.js';
import type { AnchorEvent } from '../anchor-model/anchor-event.js';
import { ExportReadAhead } from './export-read-ahead.js';
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
  /** The page's operations: only counted here (the anchors' files carry them). */
  items?: unknown[];
  anchors: PageAnchor[];
  cursor: string;
  more: boolean;
}

/** Operations of the pages taken at once: their files go in one write and their intakes in one round. */
const BATCH_OPERATIONS = 5_000;
/** Pages fetched ahead of the ones being taken (~1 MB a page). */
const READ_AHEAD_PAGES = 16;
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
 * the usual paths (they are fetched as parents when an anchor of the followee needs them). Pages are fetched
 * ahead (`ExportReadAhead`) and their anchors stream into one `processInOrder`, so pages travel, anchors are
 * verified and groups commit side by side for the whole export. The position is kept per followee and moves only past
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
    let saved = (await this.deps.positions.get(service))?.cursor ?? '';
    const url = (after: string) =>
      `${base.replace(/\/+$/, '')}/sidetree/v1/export?count=${EXPORT_MAX_COUNT}&after=${encodeURIComponent(after)}`;
    const pages = new ExportReadAhead((after) => this.fetchPage(url(after)), saved, READ_AHEAD_PAGES);
    // A batch's cursor is saved once every anchor taken from it and before it has its outcome.
    const marks: Array<{ through: number; cursor: string }> = [];
    let yielded = 0;
    let settled = 0;
    let committed = 0;
    let saving: Promise<void> = Promise.resolve();
    const saveSettled = () => {
      let cursor: string | undefined;
      while (marks.length > 0 && (marks[0] as { through: number }).through <= settled) cursor = marks.shift()?.cursor;
      if (cursor === undefined || cursor === saved) return;
      saved = cursor;
      const position = { cursor, updatedAt: Date.now() };
      saving = saving.then(() => this.deps.positions.put(service, position));
    };
    // Anchors already given to the observer in this run: one whose operations run over two batches goes once.
    const handedOver = new Set<string>();
    const anchors = async function* (this: ExportCatchUp): AsyncGenerator<AnchorEvent> {
      for (let read = 0; read < maxPages;) {
        let batch: Page[];
        try {
          batch = await pages.take(BATCH_OPERATIONS, (page) => page.items?.length ?? EXPORT_MAX_COUNT);
        } catch (error) {
          if (peerStatusOf(error) !== 404) throw error;
          this.noExportUntil.set(service, Date.now() + NO_EXPORT_RETRY_MS);
          return;
        }
        if (batch.length === 0) return;
        read += batch.length;
        const taken = await this.takeAnchors(
          service,
          base,
          batch.flatMap((page) => page.anchors),
          handedOver,
        );
        for (const event of taken) {
          yielded++;
          yield event;
        }
        marks.push({ through: yielded, cursor: (batch.at(-1) as Page).cursor });
        saveSettled();
      }
    }.call(this);
    try {
      await this.deps.observer.processInOrder(
        anchors,
        async (event, error) => {
          // Refused for good: recorded as the observer records any anchor it refuses, and the catch-up goes on.
          this.deps.log.warn('an exported anchor was refused', {
            anchor: event.hashlink,
            service,
            err: errorMessage(error),
          });
          await this.deps.observer.reject({ hashlink: event.hashlink, attributedTo: service }, errorMessage(error));
        },
        {
          onSettled: (count, operations) => {
            settled = count;
            committed = operations;
            saveSettled();
          },
        },
      );
    } finally {
      pages.close();
      await saving;
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
   * The batch's anchors of the followee (and this node's own it lacks) in the pages' order, once each (an anchor
   * whose operations run over several pages is on each of them, its files on the first; one already in
   * `handedOver` is left out, and those taken are added to it), as events for the observer, once their files are
   * written in one write and their intakes in one round.
   */
  private async takeAnchors(
    service: string,
    base: string,
    anchors: readonly PageAnchor[],
    handedOver: Set<string>,
  ): Promise<AnchorEvent[]> {
    const byHash = new Map<string, { anchor: PageAnchor; own: boolean }>();
    for (const anchor of anchors) {
      if (typeof anchor?.anchor !== 'string' || typeof anchor.hashlink !== 'string') continue;
      if (handedOver.has(anchor.anchor)) continue;
      const seen = byHash.get(anchor.anchor);
      if (seen) {
        if (seen.anchor.files === undefined && anchor.files !== undefined) seen.anchor = anchor;
        continue;
      }
      const author = anchor.linkset?.linkset?.[0]?.author?.[0]?.href;
      // This node's own anchors come back this way after its database was restored from an older backup.
      const own = author !== undefined && author === this.deps.self;
      if (author !== service && !own) continue;
      byHash.set(anchor.anchor, { anchor, own });
    }
    const taken = [...byHash.values()];
    const known = await Promise.all(taken.map(({ anchor }) => this.deps.observer.isProcessed(anchor.anchor)));
    const todo = taken.filter((_, at) => known[at] === undefined);
    if (todo.length === 0) return [];
    for (const { anchor } of todo) handedOver.add(anchor.anchor);
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
    return todo.map(({ anchor, own }) => ({
      hashlink: anchor.hashlink,
      linkset: anchor.linkset,
      ...(own ? {} : { attributedTo: service }),
      sources: [base],
    }));
  }
}
