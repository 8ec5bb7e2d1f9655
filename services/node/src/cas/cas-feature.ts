import { notFound } from '@anchor/common/errors';
import type { RequestHandler } from 'express';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import { CasStore, checkResourceHash } from './cas-store.js';
import { ContentResolver } from './content-resolver.js';

export interface CasFeature extends NodeFeature {
  readonly store: CasStore;
  /** Local-then-remote lookup by hashlink, for the observer: this node's anchors and remote ones. */
  readonly resolver: ContentResolver;
  readonly handlers: { readonly getContent: RequestHandler };
}

/** The node's CAS, and `GET /cas/<hash>`: the raw bytes of anything in it (batch files, anchor linksets). */
export async function createCasFeature(ctx: NodeContext): Promise<CasFeature> {
  const store = await CasStore.open(ctx.storage, ctx.urls.casBase);
  const getContent: RequestHandler = async (req, res) => {
    const hash = checkResourceHash(String(req.params.hash));
    const found = await store.read(hash);
    if (!found) throw notFound(`no content at ${hash}`);
    res.type(found.mediaType).send(found.content);
  };
  return {
    name: 'cas',
    store,
    resolver: new ContentResolver(store, ctx.httpClient, ctx.nodeMetrics),
    handlers: { getContent },
  };
}
