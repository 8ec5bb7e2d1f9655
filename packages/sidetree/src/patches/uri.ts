/**
 * URI checks for service endpoints and also-known-as entries. Ingest wants an absolute URI: a scheme, no
 * whitespace, and something the WHATWG parser accepts (covers http(s), did:, urn:, mailto: ...). Anchored
 * data is judged as Orb judges it, so every node agrees on the same anchors.
 */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
// eslint-disable-next-line no-control-regex
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;

export function isAbsoluteUri(text: string): boolean {
  return SCHEME.test(text) && !WHITESPACE_OR_CONTROL.test(text) && URL.canParse(text);
}

/** Go `url.ParseRequestURI`: an absolute URI, or an absolute path. */
export function isGoRequestUri(text: string): boolean {
  return (SCHEME.test(text) || text.startsWith('/')) && !WHITESPACE_OR_CONTROL.test(text);
}

/** Go `url.Parse` is lenient: any non-empty text without control characters and with a sane scheme part. */
export function isGoUri(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return text.length > 0 && !/[\u0000-\u001f\u007f]/.test(text) && !text.startsWith(':');
}
