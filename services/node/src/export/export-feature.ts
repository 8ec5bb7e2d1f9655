import { badRequest } from '@anchor/common/errors';
import { Readable } from 'node:stream';
import { answer, jsonBody, type Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
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
    readonly getExport: Handler;
    readonly streamExport: Handler;
    readonly postImport: Handler;
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
  // The open streams, each ended (after its current page) when the feature stops.
  const streams = new Set<AbortController>();

  const countOf = (text: string | undefined): number => {
    if (text === undefined) return EXPORT_MAX_COUNT;
    const count = /^\d{1,7}$/.test(text) ? Number(text) : 0;
    if (count < 1 || count > EXPORT_MAX_COUNT)
      throw badRequest(`'count' must be an integer from 1 to ${EXPORT_MAX_COUNT}`);
    return count;
  };

  const getExport: Handler = async (req) => {
    const after = parseCursor(req.query.get('after') ?? undefined);
    const page = await exporter.page(after, countOf(req.query.get('count') ?? undefined));
    return answer({ text: exportPageJson(page), type: 'application/json' });
  };

  const streamExport: Handler = (req) => {
    // EventSource reconnects with the id of the last event it received.
    const lastEventId = req.headers['last-event-id'];
    const after = req.query.get('after') ?? (typeof lastEventId === 'string' ? lastEventId : undefined);
    const from = parseCursor(after);
    const count = countOf(req.query.get('count') ?? undefined);
    const ended = new AbortController();
    streams.add(ended);
    const stream = Readable.from(exportEvents(from, count, AbortSignal.any([req.signal, ended.signal])));
    stream.once('close', () => streams.delete(ended));
    return answer({
      stream,
      type: 'text/event-stream; charset=utf-8',
      headers: { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
      longLived: true,
    });
  };

  /** The stream's events: the pages from `from` on, then each new one as it is committed, until `stop`. */
  async function* exportEvents(from: ExportCursor, count: number, stop: AbortSignal): AsyncGenerator<string> {
    let cursor = from;
    try {
      let quietSince = Date.now();
      while (!stop.aborted) {
        const page = await exporter.page(cursor, count);
        if (page.items.length > 0) {
          yield `id: ${page.cursor}\nevent: page\ndata: ${exportPageJson(page)}\n\n`;
          cursor = parseCursor(page.cursor);
          quietSince = Date.now();
        }
        if (page.more) continue;
        if (Date.now() - quietSince >= STREAM_HEARTBEAT_MS) {
          yield ': keep-alive\n\n';
          quietSince = Date.now();
        }
        await nextCommit(stop);
      }
    } catch (error) {
      // Headers are out: the error goes to the stream as its last event.
      log.warn('export stream failed', { err: (error as Error).message });
      if (!stop.aborted) yield `event: error\ndata: ${JSON.stringify({ message: (error as Error).message })}\n\n`;
    }
  }

  /** Resolves on the next commit made here, after STREAM_POLL_MS (another instance's commits), or on `stop`. */
  const nextCommit = (stop: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        waiting.delete(wake);
        stop.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, STREAM_POLL_MS);
      waiting.add(wake);
      stop.addEventListener('abort', wake);
      if (stop.aborted) wake();
    });

  const postImport: Handler = async (req) => {
    const body = jsonBody(req, 'an export page') as { anchors?: unknown };
    if (typeof body !== 'object' || body === null || !Array.isArray(body.anchors))
      throw badRequest('an export page: a JSON object with an "anchors" list, as GET /sidetree/v1/export answers');
    return answer({ json: await mirror.import(body.anchors as ImportedAnchor[]) });
  };

  return {
    name: 'export',
    export: exporter,
    mirror,
    handlers: { getExport, streamExport, postImport },
    async stop() {
      for (const ended of streams) ended.abort();
    },
  };
}
