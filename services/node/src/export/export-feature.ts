import { badRequest } from '@anchor/common/errors';
import { jsonBody, endWhenServerCloses, queryValue } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import type { RequestHandler, Response } from 'express';
import type { CasFeature } from '../cas/cas-feature.js';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { ObserverFeature } from '../observer/observer-feature.js';
import type { OperationStores } from '../operations/operation-stores.js';
import { MirrorImport, type ImportedAnchor } from './mirror-import.js';
import {
  EXPORT_MAX_COUNT,
  exportPageJson,
  OperationExport,
  parseCursor,
  type ExportCursor,
} from './operation-export.js';

export const EXPORT_PATH = '/sidetree/v1/export';
export const EXPORT_STREAM_PATH = '/sidetree/v1/export/stream';
export const IMPORT_PATH = '/sidetree/v1/import';

/** How often a stream with nothing new looks at the store anyway (anchors committed by another instance). */
const STREAM_POLL_MS = 2_000;
/** A comment line this often keeps proxies from closing an idle stream. */
const STREAM_HEARTBEAT_MS = 15_000;

export interface ExportFeature extends NodeFeature {
  readonly export: OperationExport;
  readonly mirror: MirrorImport;
  readonly handlers: {
    readonly getExport: RequestHandler;
    readonly streamExport: RequestHandler;
    readonly postImport: RequestHandler;
  };
}

/**
 * The export for mirrors (`GET /sidetree/v1/export`, paged; `GET /sidetree/v1/export/stream`, Server-Sent
 * Events that go on with new anchors as they are committed) and its counterpart, the import of such pages
 * into this node (`POST /sidetree/v1/import`), which is how a mirror is built from an export file.
 */
export function createExportFeature(
  ctx: NodeContext,
  deps: { stores: OperationStores; observer: ObserverFeature; cas: CasFeature },
): ExportFeature {
  const log = getLogger('export');
  const exporter = new OperationExport({
    stores: deps.stores,
    records: deps.observer.records,
    cas: deps.cas.store,
    content: deps.cas.resolver,
    namespace: ctx.config.sidetree.didNamespace,
    protocols: ctx.protocols,
  });
  const mirror = new MirrorImport({ observer: deps.observer.observer, cas: deps.cas.store });

  // Streams waiting for the next commit; each is woken (and reads the store) when one is made here.
  const waiting = new Set<() => void>();
  deps.observer.onProcessed(() => {
    for (const wake of [...waiting]) wake();
  });
  const streams = new Set<Response>();

  const countOf = (text: string | undefined): number => {
    if (text === undefined) return EXPORT_MAX_COUNT;
    const count = /^\d{1,7}$/.test(text) ? Number(text) : 0;
    if (count < 1 || count > EXPORT_MAX_COUNT)
      throw badRequest(`'count' must be an integer from 1 to ${EXPORT_MAX_COUNT}`);
    return count;
  };

  const getExport: RequestHandler = async (req, res) => {
    const after = parseCursor(queryValue(req, 'after'));
    const page = await exporter.page(after, countOf(queryValue(req, 'count')));
    res.type('application/json').send(exportPageJson(page));
  };

  const streamExport: RequestHandler = async (req, res) => {
    // EventSource reconnects with the id of the last event it received.
    const lastEventId = req.get('last-event-id');
    const after = queryValue(req, 'after') ?? lastEventId;
    let cursor: ExportCursor = parseCursor(after);
    const count = countOf(queryValue(req, 'count'));
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    endWhenServerCloses(res);
    streams.add(res);
    let open = true;
    let wake: (() => void) | undefined;
    const closed = (): void => {
      open = false;
      streams.delete(res);
      wake?.();
    };
    res.once('close', closed);
    const write = async (text: string): Promise<void> => {
      if (!res.write(text)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    };
    try {
      let quietSince = Date.now();
      while (open) {
        const page = await exporter.page(cursor, count);
        if (page.items.length > 0) {
          await write(`id: ${page.cursor}\nevent: page\ndata: ${exportPageJson(page)}\n\n`);
          cursor = parseCursor(page.cursor);
          quietSince = Date.now();
        }
        if (page.more) continue;
        if (Date.now() - quietSince >= STREAM_HEARTBEAT_MS) {
          await write(': keep-alive\n\n');
          quietSince = Date.now();
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, STREAM_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            waiting.delete(wake as () => void);
            resolve();
          };
          waiting.add(wake);
          if (!open) wake();
        });
        if (wake) waiting.delete(wake);
      }
    } catch (error) {
      // Headers are out: the error goes to the stream as its last event.
      log.warn('export stream failed', { err: (error as Error).message });
      if (open) res.write(`event: error\ndata: ${JSON.stringify({ message: (error as Error).message })}\n\n`);
    } finally {
      streams.delete(res);
      res.end();
    }
  };

  const postImport: RequestHandler = async (req, res) => {
    const body = jsonBody(req, 'an export page') as { anchors?: unknown };
    if (typeof body !== 'object' || body === null || !Array.isArray(body.anchors))
      throw badRequest('an export page: a JSON object with an "anchors" list, as GET /sidetree/v1/export answers');
    res.json(await mirror.import(body.anchors as ImportedAnchor[]));
  };

  return {
    name: 'export',
    export: exporter,
    mirror,
    handlers: { getExport, streamExport, postImport },
    async stop() {
      for (const res of streams) res.end();
    },
  };
}
