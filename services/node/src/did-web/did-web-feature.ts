import { answer, type Handler } from '@anchor/common/http';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';
import type { WebDidView } from '../resolution/web-did-view.js';

export interface DidWebFeature extends NodeFeature {
  readonly handlers: { readonly getDocument: Handler };
}

/** `GET /scid/<suffix>/did.json`: the did:web document (no resolution wrapper) of `did:web:<host>:scid:<suffix>`. */
export function createDidWebFeature(ctx: NodeContext, deps: { webView: WebDidView }): DidWebFeature {
  const getDocument: Handler = async (req) => {
    const result = await deps.webView.resolveSuffix(String(req.params['id']), ctx.urls.host);
    return answer({ json: result.didDocument });
  };
  return { name: 'did-web', handlers: { getDocument } };
}
