import { notFound } from '@anchor/common/errors';
import type { ParsedNodeDid } from './parse-node-did.js';

/**
 * orb's CID check on resolve: an anchor hash named in a requested DID must be the canonical one or an
 * earlier anchor of the same suffix, so stale but genuine DIDs resolve and made-up ones do not. `uAAA`
 * forms name no anchor and always pass. `anchorHashes` lists the suffix's anchors as hashes (`uEi…`) or
 * hashlinks (`hl:uEi…[:metadata]`).
 */
export function namesKnownAnchor(
  did: ParsedNodeDid,
  canonicalReference: string | undefined,
  anchorHashes: readonly string[],
): boolean {
  const requested = did.anchorHash;
  if (requested === undefined || requested === canonicalReference) return true;
  return anchorHashes.some((anchor) => hashOf(anchor) === requested);
}

/** Throws not_found (as orb answers) when `namesKnownAnchor` is false. */
export function assertKnownAnchor(
  did: ParsedNodeDid,
  canonicalReference: string | undefined,
  anchorHashes: readonly string[],
): void {
  if (!namesKnownAnchor(did, canonicalReference, anchorHashes)) {
    throw notFound(`document not found: ${String(did.anchorHash)} is not an anchor of DID suffix ${did.suffix}`);
  }
}

function hashOf(anchor: string): string {
  return anchor.startsWith('hl:') ? (anchor.split(':')[1] ?? '') : anchor;
}
