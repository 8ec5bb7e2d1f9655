import { notFound } from '@anchor/common/errors';
import { answer, type Handler } from '@anchor/common/http';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { CasStore, checkResourceHash } from './cas-store.js';
import { ContentResolver } from './content-resolver.js';

export interface CasFeature extends NodeFeature {
  readonly store: CasStore;
  /** Local-then-remote lookup by hashlink, for the observer: this node's anchors and remote ones. */
  readonly resolver: ContentResolver;
  readonly handlers: { readonly getContent: Handler };
}

/** The node's CAS, and `GET /cas/<hash>`: the raw bytes of anything in it (batch files, anchor linksets). */
export async function createCasFeature(ctx: NodeContext): Promise<CasFeature> {
  const store = await CasStore.open(ctx.storage, ctx.urls.casBase);
  const getContent: Handler = async (req) => {
    const hash = checkResourceHash(String(req.params['hash']));
    const found = await store.read(hash);
    if (!found) throw notFound(`no content at ${hash}`);
    return answer({ bytes: found.content, type: servedType(found.mediaType) });
  };
  return {
    name: 'cas',
    store,
    resolver: new ContentResolver(store, ctx.httpClient, ctx.nodeMetrics),
    handlers: { getContent },
  };
}

/** The Content-Type as this route has always written it (express's `res.type`): JSON and text with their UTF-8 charset. */
function servedType(mediaType: string): string {
  return /^(application\/json|text\/[^;\s]+)$/i.test(mediaType) ? `${mediaType}; charset=utf-8` : mediaType;
}
