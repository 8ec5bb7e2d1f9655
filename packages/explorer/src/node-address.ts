/**
 * Which node the explorer reads from: the `node` query parameter when it is an http(s) URL, else the node
 * that served the page (the explorer lives at `<node>/explorer/`). Pure, so it is unit-tested without a page.
 */
export function nodeBase(pageUrl: string): string {
  const page = new URL(pageUrl);
  const chosen = page.searchParams.get('node');
  if (chosen !== null) {
    let url: URL;
    try {
      url = new URL(chosen);
    } catch {
      throw new Error(`the node parameter is not a URL: ${chosen}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`the node parameter must be an http or https URL: ${chosen}`);
    }
    return url.href.replace(/\/+$/, '');
  }
  const explorerAt = page.pathname.indexOf('/explorer/');
  const prefix = explorerAt >= 0 ? page.pathname.slice(0, explorerAt) : '';
  return `${page.origin}${prefix}`;
}

/** The resolution URL of a DID (any of its forms: the node resolves each of them) on a node. */
export function resolutionUrl(base: string, did: string): string {
  return `${base}/sidetree/v1/identifiers/${encodeURIComponent(did.trim())}`;
}
