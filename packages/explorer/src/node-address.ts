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

/**
 * The did:web form the node serves for a did:node DID (`did:web:<host>:scid:<suffix>`, its document at
 * `<node>/scid/<suffix>/did.json`), or undefined when the node sits under a path (did:web would need it too).
 */
export function didWebForm(base: string, did: string): string | undefined {
  const url = new URL(base);
  if (url.pathname !== '/' && url.pathname !== '') return undefined;
  const suffix = did.split(':').at(-1);
  if (!did.startsWith('did:node:') || suffix === undefined || suffix === '') return undefined;
  return `did:web:${encodeURIComponent(url.host)}:scid:${suffix}`;
}

/** What the search box was given: a DID (any form) or an anchor (its hash or hashlink). */
export function searchTarget(query: string): { did: string } | { anchor: string } | undefined {
  const text = query.trim();
  if (text === '') return undefined;
  if (text.startsWith('did:')) return { did: text };
  // An anchor's hashlink is `hl:<hash>[:<metadata>]`; its hash is multibase `u` + base64url of a multihash.
  const hashlink = /^hl:(u[A-Za-z0-9_-]+)(:[A-Za-z0-9_-]+)?$/.exec(text);
  if (hashlink) return { anchor: hashlink[1]! };
  if (/^u[A-Za-z0-9_-]{40,}$/.test(text)) return { anchor: text };
  return { did: text };
}

/** The explorer's own link to one of its views, keeping the `node` parameter the page was opened with. */
export function viewHref(pageUrl: string, params: Record<string, string>): string {
  const node = new URL(pageUrl).searchParams.get('node');
  const search = new URLSearchParams(params);
  if (node !== null) search.set('node', node);
  const text = search.toString();
  return text === '' ? '.' : `?${text}`;
}
