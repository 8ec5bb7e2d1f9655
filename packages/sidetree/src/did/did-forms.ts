import { UNPUBLISHED_ANCHOR } from '@anchor/common/encoding';

/**
 * Building did:node identifiers. Every form ends with the suffix; what sits between the namespace and the
 * suffix is a hint saying where the DID was anchored:
 *
 * | form        | example                                           |
 * |-------------|---------------------------------------------------|
 * | unpublished | `did:node:uAAA:<suffix>`                          |
 * | canonical   | `did:node:<anchorHash>:<suffix>`                  |
 * | hashlink    | `did:node:hl:<anchorHash>:<metadata>:<suffix>`    |
 * | https hint  | `did:node:https:<host>:<anchorHash or uAAA>:<suffix>` |
 * | long form   | any of the above `:<base64url JCS initial state>` |
 */
export const DEFAULT_NAMESPACE = 'did:node';

export function unpublishedDid(suffix: string, namespace: string = DEFAULT_NAMESPACE): string {
  return `${namespace}:${UNPUBLISHED_ANCHOR}:${suffix}`;
}

export function canonicalDid(anchorHash: string, suffix: string, namespace: string = DEFAULT_NAMESPACE): string {
  return `${namespace}:${anchorHash}:${suffix}`;
}

/** `hashlink` is `hl:<anchorHash>` or `hl:<anchorHash>:<metadata>`. */
export function hashlinkDid(hashlink: string, suffix: string, namespace: string = DEFAULT_NAMESPACE): string {
  return `${namespace}:${hashlink}:${suffix}`;
}

/**
 * `domain` is a host, optionally with a port; the port's colon is written `%3A` so that it cannot be taken
 * for a DID segment separator (as orb writes it).
 */
export function httpsDid(
  domain: string,
  anchorHash: string,
  suffix: string,
  namespace: string = DEFAULT_NAMESPACE,
): string {
  return `${namespace}:https:${encodeDomain(domain)}:${anchorHash}:${suffix}`;
}

/** A DID from an anchor reference as the observer records it (`uEi…`, `hl:…`, `https:<host>:uEi…`). */
export function referenceDid(reference: string, suffix: string, namespace: string = DEFAULT_NAMESPACE): string {
  return `${namespace}:${reference}:${suffix}`;
}

export function encodeDomain(domain: string): string {
  return domain.replaceAll(':', '%3A');
}

export function decodeDomain(segment: string): string {
  return segment.replaceAll('%3A', ':').replaceAll('%3a', ':');
}
