import type { RequestHandler } from 'express';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { WebDidView } from '../resolution/web-did-view.js';

export interface DidWebFeature extends NodeFeature {
  readonly handlers: { readonly getDocument: RequestHandler };
}

/** `GET /scid/<suffix>/did.json`: the did:web document (no resolution wrapper) of `did:web:<host>:scid:<suffix>`. */
export function createDidWebFeature(ctx: NodeContext, deps: { webView: WebDidView }): DidWebFeature {
  const getDocument: RequestHandler = async (req, res) => {
    const result = await deps.webView.resolveSuffix(String(req.params.id), ctx.urls.host);
    res.type('application/json').send(JSON.stringify(result.didDocument));
  };
  return { name: 'did-web', handlers: { getDocument } };
}
